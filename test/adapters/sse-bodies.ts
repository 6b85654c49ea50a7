// SSE bodies in the providers' documented streaming formats, for the replay server.

/** `data: <json>` events, then `data: [DONE]` (OpenAI Chat Completions). */
export function dataEvents(payloads: readonly object[]): string {
  return [...payloads.map((payload) => `data: ${JSON.stringify(payload)}\n\n`), 'data: [DONE]\n\n'].join('');
}

/** An event payload with its `type` (Anthropic Messages, OpenAI Responses). */
export interface TypedPayload {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** `event: <type>` + `data: <json>` events (Anthropic Messages, OpenAI Responses). */
export function typedEvents(payloads: readonly TypedPayload[]): string {
  return payloads.map((payload) => `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`).join('');
}

// ---- OpenAI Chat Completions (DeepSeek adds `reasoning_content` to the delta) ----

export function chatChunk(delta: object, finishReason: string | null = null): object {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1764460800,
    model: 'deepseek-chat',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The last chunk with `stream_options: { include_usage: true }`: no choices, the usage. */
export function chatUsage(prompt: number, completion: number): object {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1764460800,
    model: 'deepseek-chat',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export function chatToolCallDelta(index: number, fields: object): object {
  return chatChunk({ tool_calls: [{ index, ...fields }] });
}

// ---- Anthropic Messages ----

export function anthropicStart(inputTokens: number): TypedPayload {
  return {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-test',
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  };
}

export function blockStart(index: number, block: object): TypedPayload {
  return { type: 'content_block_start', index, content_block: block };
}

export function blockDelta(index: number, delta: object): TypedPayload {
  return { type: 'content_block_delta', index, delta };
}

export function blockStop(index: number): TypedPayload {
  return { type: 'content_block_stop', index };
}

export function anthropicEnd(stopReason: string, outputTokens: number): TypedPayload[] {
  return [
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    },
    { type: 'message_stop' },
  ];
}

// ---- OpenAI Responses ----

let sequence = 0;

/** A Responses event with its `sequence_number`. */
export function responsesEvent(type: string, fields: object): TypedPayload {
  return { type, sequence_number: sequence++, ...fields };
}

export function responseCompleted(inputTokens: number, outputTokens: number): TypedPayload {
  return responsesEvent('response.completed', {
    response: {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      output: [],
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inputTokens + outputTokens,
      },
    },
  });
}
