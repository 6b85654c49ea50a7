// The parts of the shared session-log core the SDK uses, in one place.
export { MessageProjector, freezeJson, isSurfaceType } from '../shared/tmp-core.ts';
export type { ProjectionChange } from '../shared/tmp-core.ts';
