export * from './store/index.ts';
export { createHub, WS_PATH, type Hub, type HubAddress } from './hub.ts';
export type { AllowedOrigins } from './ws/origin-policy.ts';
export {
  defaultLimits,
  openAuth,
  type HubAction,
  type HubAuth,
  type HubConfig,
  type HubLimits,
  type HubPrincipal,
  type RequestInfo,
  type ResolvedHubConfig,
} from './config.ts';
export { HubError, httpStatusOf, toHubError, type ErrorDetails } from './hub-error.ts';
export { HubMetrics } from './metrics.ts';
export { requestToken } from './auth/request-token.ts';
export * from './auth/index.ts';
export * from './limits/index.ts';
