import { describe, expect, it } from 'vitest';
import * as aiSdk from '../../client/ai-sdk/index.ts';
import * as react from '../../client/react/index.ts';

/** The runtime names of session-hub/react and session-hub/ai-sdk (as test/package/public-api.test.ts does). */
describe('public API of the React and AI SDK entry points', () => {
  it('session-hub/react: the hooks, the provider and the shared view', () => {
    expect(Object.keys(react).sort()).toEqual([
      'EMPTY_SESSION_SNAPSHOT',
      'HubProvider',
      'SessionView',
      'sessionView',
      'useAppend',
      'useHubChat',
      'useHubClient',
      'useSession',
    ]);
  });

  it('session-hub/ai-sdk: the transport and the mappings', () => {
    expect(Object.keys(aiSdk).sort()).toEqual([
      'HubChatTransport',
      'MAX_UI_MESSAGE_ID_LENGTH',
      'TurnChunker',
      'UIMessageBuilder',
      'derivedToUIMessages',
      'logToUIMessages',
      'pendingReply',
      'turnMessageId',
      'turnStream',
      'uiToDerivedMessages',
    ]);
  });
});
