import { useEffect, useState, type RefObject } from 'react';

/** Selects the text of an element, so the user can copy it with Ctrl+C / ⌘C. */
export function selectText(element: HTMLElement): void {
  const selection = window.getSelection();
  if (!selection) return;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
}

/**
 * Copies `text`: the Clipboard API where the page may use it (https or localhost); otherwise, or when it is refused,
 * the text of `target` is selected and the old copy command tried. Resolves to what happened.
 */
export async function copyText(text: string, target: HTMLElement | null): Promise<'copied' | 'selected'> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return 'copied';
    }
  } catch {
    // refused (permissions, no focus): fall back to selecting the text
  }
  if (!target) return 'selected';
  selectText(target);
  try {
    return document.execCommand('copy') ? 'copied' : 'selected';
  } catch {
    return 'selected';
  }
}

interface CopyButtonProps {
  text: string;
  /** The element that shows the text: selected when the clipboard cannot be used. */
  target: RefObject<HTMLElement | null>;
  testid?: string;
  label?: string;
}

export function CopyButton({ text, target, testid, label = 'Copy' }: CopyButtonProps) {
  const [outcome, setOutcome] = useState<'copied' | 'selected'>();
  useEffect(() => {
    if (!outcome) return;
    const timer = setTimeout(() => setOutcome(undefined), 4000);
    return () => clearTimeout(timer);
  }, [outcome]);
  return (
    <span className="copy">
      <button type="button" data-testid={testid} onClick={() => void copyText(text, target.current).then(setOutcome)}>
        {outcome === 'copied' ? 'Copied' : label}
      </button>
      <span role="status" className="muted copy-status">
        {outcome === 'selected' ? 'Selected: press Ctrl+C (⌘C on a Mac) to copy.' : ''}
      </span>
    </span>
  );
}
