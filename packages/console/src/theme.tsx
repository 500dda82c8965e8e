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

/** Sets the theme on the document (before the first render too: main.tsx, so the page never flashes the other one). */
export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') delete document.documentElement.dataset['theme'];
  else document.documentElement.dataset['theme'] = choice;
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
