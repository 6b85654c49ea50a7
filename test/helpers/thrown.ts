/** What `action` throws, or undefined when it returns (for asserting on synchronous errors by field). */
export function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}
