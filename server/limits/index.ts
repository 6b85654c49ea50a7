export * from './limits.ts';
export * from './event-size.ts';
export * from './rate-limiter.ts';
export * from './outbound-flow.ts';
export * from './outbound-gate.ts';
export * from './connection-guard.ts';
export * from './pending-connections.ts';
export * from './subscription-budget.ts';
