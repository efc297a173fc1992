/**
 * One rule for every name the directory keeps (user names and e-mails, group display names,
 * workspace names): no C0 control characters or DEL, no unpaired surrogates. They are never data
 * in a name, only trouble (log injection, truncation in C clients, a name no one can type).
 */
const CONTROL = /[\u0000-\u001f\u007f]/;

export const isPlainText = (s: string) => !CONTROL.test(s) && s.isWellFormed();

/** Why `value` is not a plain name (for a 400 naming `label`), or null when it is one. */
export function plainTextProblem(label: string, value: string): string | null {
  return isPlainText(value) ? null : `${label} must not contain control characters or unpaired surrogates`;
}
