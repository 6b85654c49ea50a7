// `session-hub/adapters`: derived messages in and out of the provider request formats (pure, isomorphic). The
// provider wire types these functions take and return are `session-hub/adapters/wire` (./wire.ts), kept out of
// this entry so that it stays seven names; api/adapters.api.md is the report of this surface.
export { toOpenAIChat } from './to-openai-chat.ts';
export type { OpenAIChatOptions } from './to-openai-chat.ts';
export { toOpenAIResponses } from './to-openai-responses.ts';
export { toAnthropic } from './to-anthropic.ts';
export { draftsFromOpenAIChat } from './from-openai-chat.ts';
export { draftsFromAnthropic } from './from-anthropic.ts';
export type { AdapterInput } from './history.ts';
