// Locale formatting for the dashboard: the viewer's locale, currency USD. Amounts arrive as exact
// decimal strings; they are turned into numbers only for display (the exact value stays in data-exact).

const locale = undefined; // the browser's own

const usdSmall = new Intl.NumberFormat(locale, {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});
const usdLarge = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' });
const integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const fullDay = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
const shortDay = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** USD with 2 decimals, or up to 4 below one dollar (small per-reply costs stay readable). */
export function usd(exact) {
  const value = Number(exact);
  return (Math.abs(value) < 1 ? usdSmall : usdLarge).format(value);
}

/** A whole number with the locale's grouping. */
export function count(value) {
  return integer.format(value);
}

/** A share (0..1) as a percentage. */
export function share(value) {
  return percent.format(value);
}

/** An ISO instant as a date and time in UTC. */
export function instant(iso) {
  return `${dateTime.format(new Date(iso))} UTC`;
}

/** An ISO instant as its UTC day with the year ("Dec 2, 2025"). */
export function day(iso) {
  return fullDay.format(new Date(iso));
}

/** A `YYYY-MM-DD` day as a short label ("Nov 5"). */
export function dayLabel(day) {
  return shortDay.format(new Date(`${day}T00:00:00Z`));
}

/** Seconds as a rough age ("3 h", "2 d"). */
export function age(seconds) {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 129600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}
