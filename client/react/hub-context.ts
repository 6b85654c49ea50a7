import { createContext, createElement, useContext, type ReactNode } from 'react';
import type { HubClient } from '../hub-client.ts';

const HubContext = createContext<HubClient | undefined>(undefined);

export interface HubProviderProps {
  /** The client every hook below uses when it is given none. Make it once (outside render, or in a `useState`). */
  readonly client: HubClient;
  readonly children?: ReactNode;
}

/** Makes `client` the one the hooks below it use (`useSession(null, id)`, `useHubClient()`). */
export function HubProvider({ client, children }: HubProviderProps): ReactNode {
  return createElement(HubContext.Provider, { value: client }, children);
}

/** The client of the nearest `HubProvider`; throws when there is none. */
export function useHubClient(): HubClient {
  const client = useContext(HubContext);
  if (client === undefined) throw new Error('useHubClient: no HubProvider above this component');
  return client;
}

/** The given client, else the provider's; throws when there is neither. */
export function useClientOrContext(client: HubClient | null | undefined): HubClient {
  const provided = useContext(HubContext);
  const chosen = client ?? provided;
  if (chosen === undefined) throw new Error('session-hub/react: pass a HubClient or render inside a HubProvider');
  return chosen;
}
