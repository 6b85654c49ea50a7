export type { SessionEvent, DerivedMessage, EventDraft } from '../shared/index.ts';
