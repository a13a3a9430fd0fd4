const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Epoch ms of 00:00 UTC of a `YYYY-MM-DD` day; NaN when it is not a real calendar day. */
export function dayStart(day: string): number {
  if (!DAY.test(day)) return Number.NaN;
  const time = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().startsWith(day) ? time : Number.NaN;
}

/** The day `count` days after `day` (negative: before). */
export function addDays(day: string, count: number): string {
  return new Date(dayStart(day) + count * DAY_MS).toISOString().slice(0, 10);
}

/** Every UTC day in [fromDay, toDay), oldest first. */
export function daysBetween(fromDay: string, toDay: string): string[] {
  const days: string[] = [];
  const end = dayStart(toDay);
  for (let time = dayStart(fromDay); time < end; time += DAY_MS) days.push(new Date(time).toISOString().slice(0, 10));
  return days;
}
