// Copy a log line as JSON (docs/console.md, "Live logs"): the Clipboard API where the browser
// offers it (a secure context: https, or the instance on localhost); otherwise the text shown
// is selected and copied the old way, and if even that is refused the user is told to press
// Ctrl+C: the selection is already there.

export type CopyOutcome = 'copied' | 'selected';

function select(element: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

export async function copyText(text: string, shown: HTMLElement): Promise<CopyOutcome> {
  try {
    if (navigator.clipboard === undefined) throw new Error('no Clipboard API');
    await navigator.clipboard.writeText(text);
    return 'copied';
  } catch {
    select(shown);
    try {
      // Deprecated, but the only way without the Clipboard API (a plain-http instance).
      if (document.execCommand('copy')) return 'copied';
    } catch {
      // Refused: the selection stays for Ctrl+C.
    }
    return 'selected';
  }
}
