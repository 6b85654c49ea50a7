// The parts of the shared session-log core the SDK uses, in one place.
export { MessageProjector, Session, freezeJson, isSurfaceType } from '../shared/index.ts';
export type { ProjectionChange } from '../shared/index.ts';
