import { useEffect, useState } from 'react';

/**
 * The console's theme: the system's (`prefers-color-scheme`), or light or dark as the reader chose, kept in
 * localStorage and set on <html> as `data-theme` (styles/base.css holds both palettes).
 */
export type ThemeChoice = 'system' | 'light' | 'dark';
const THEME_KEY = 'lantern.theme';
const CHOICES: ReadonlyArray<[ThemeChoice, string]> = [['system', 'System'], ['light', 'Light'], ['dark', 'Dark']];

export function loadTheme(): ThemeChoice {
  try {
    const saved = localStorage.getItem(THEME_KEY);
    return saved === 'light' || saved === 'dark' ? saved : 'system';
  } catch {
    return 'system';
  }
}

const systemDark = (): MediaQueryList | undefined => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined);
let following: (() => void) | undefined;

/**
 * Sets the theme on the document as `data-theme` (before the first render too: main.tsx, so the page never flashes
 * the other one): the choice, or with 'system' the system's, followed while it changes (styles/base.css has one dark
 * palette, for `data-theme=dark`).
 */
export function applyTheme(choice: ThemeChoice): void {
  const media = systemDark();
  if (following) media?.removeEventListener('change', following);
  following = undefined;
  const set = (dark: boolean) => { document.documentElement.dataset['theme'] = dark ? 'dark' : 'light'; };
  if (choice !== 'system') return set(choice === 'dark');
  set(media?.matches ?? false);
  following = () => set(media?.matches ?? false);
  media?.addEventListener('change', following);
}

/** The top bar's theme choice. */
export function ThemeSwitch() {
  const [choice, setChoice] = useState(loadTheme);
  useEffect(() => {
    applyTheme(choice);
    try {
      if (choice === 'system') localStorage.removeItem(THEME_KEY);
      else localStorage.setItem(THEME_KEY, choice);
    } catch {
      // storage refused: the choice lasts until reload
    }
  }, [choice]);
  return (
    <label className="theme-switch">
      <span className="sr-only">Theme</span>
      <select data-testid="theme-switch" value={choice} onChange={(e) => setChoice(e.target.value as ThemeChoice)} title="Theme">
        {CHOICES.map(([value, label]) => <option key={value} value={value}>{label} theme</option>)}
      </select>
    </label>
  );
}
