/**
 * Characters that act on a terminal rather than show: C0 controls but tab and newline (ESC starts every
 * sequence: OSC 0 sets the window title, OSC 52 the clipboard, CSI 2J clears the screen; CR overwrites the line),
 * DEL, C1 controls (0x9B is a one-byte CSI on some terminals) and the bidirectional overrides and isolates that
 * make text display in another order than it reads ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escaped(character: string): string {
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` made safe to print for people: every control character shows as a visible escape (`\x1b`, `\u202e`), so
 * what a session's events or a hub's error text hold cannot drive the operator's terminal. Newlines and tabs stay.
 * Only for human output: `--json` and files stay byte-exact.
 */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_CONTROLS, escaped);
}

/** `terminalText` for text that must stay on one line (an error message): newlines show as `\x0a` too. */
export function terminalLine(text: string): string {
  return terminalText(text).replace(/\n/g, escaped);
}
