import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { formatTimestamp, type TimestampOptions } from './lib/format';
import { isZoneChoice, zoneLabel, zoneOf, zoneShort, type ZoneChoice } from './lib/time-zone';

/**
 * The time-zone choice of the console (local or UTC), kept in localStorage: every component that shows a time
 * formats it through `useTimePrefs().time`, so one choice holds everywhere, and the top bar says which it is.
 */
export interface TimePrefs {
  choice: ZoneChoice;
  /** The IANA zone for Intl: 'UTC', or undefined for the browser's. */
  timeZone: string | undefined;
  /** "UTC" or "Local (UTC+01:00)". */
  label: string;
  /** "UTC" or "UTC+01:00": beside a time or a column heading. */
  short: string;
  setChoice(choice: ZoneChoice): void;
  /** formatTimestamp in the chosen zone. */
  time(iso: string | null | undefined, now?: number | Date, options?: Omit<TimestampOptions, 'timeZone'>): string;
}

const ZONE_KEY = 'lantern.timezone';

function loadChoice(): ZoneChoice {
  try {
    const saved = localStorage.getItem(ZONE_KEY);
    return isZoneChoice(saved) ? saved : 'local';
  } catch {
    return 'local';
  }
}

function prefsOf(choice: ZoneChoice, setChoice: (c: ZoneChoice) => void): TimePrefs {
  const timeZone = zoneOf(choice);
  const now = Date.now();
  return {
    choice,
    timeZone,
    label: zoneLabel(choice, now),
    short: zoneShort(choice, now),
    setChoice,
    time: (iso, at = Date.now(), options = {}) => formatTimestamp(iso, at, { ...options, timeZone }),
  };
}

// Outside a provider (the sign-in pages): local time, and no choice to make.
const TimePrefsContext = createContext<TimePrefs>(prefsOf('local', () => undefined));

export function useTimePrefs(): TimePrefs {
  return useContext(TimePrefsContext);
}

export function TimePrefsProvider({ children }: { children: ReactNode }) {
  const [choice, setChoiceState] = useState<ZoneChoice>(loadChoice);
  const setChoice = useCallback((c: ZoneChoice) => setChoiceState(c), []);
  useEffect(() => {
    try {
      localStorage.setItem(ZONE_KEY, choice);
    } catch {
      // storage refused: the choice lasts until reload
    }
  }, [choice]);
  const value = useMemo(() => prefsOf(choice, setChoice), [choice, setChoice]);
  return <TimePrefsContext.Provider value={value}>{children}</TimePrefsContext.Provider>;
}

/** The top bar's zone switch: says which zone every time is in, and flips it. */
export function ZoneSwitch() {
  const prefs = useTimePrefs();
  const other: ZoneChoice = prefs.choice === 'utc' ? 'local' : 'utc';
  return (
    <button
      type="button"
      className="zone-switch link"
      data-testid="zone-switch"
      data-zone={prefs.choice}
      title={`Times are shown in ${prefs.label}. Switch to ${other === 'utc' ? 'UTC' : 'local time'}.`}
      onClick={() => prefs.setChoice(other)}
    >
      {prefs.label}
    </button>
  );
}
