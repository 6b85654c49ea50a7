/** `session-hub` command line. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command = 'serve'] = argv;
  if (command === 'serve') {
    process.stderr.write('session-hub: the hub is not implemented yet\n');
    return 1;
  }
  process.stderr.write(`session-hub: unknown command ${command}\n`);
  return 2;
}
