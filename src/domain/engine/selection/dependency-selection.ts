import { fillByWeight } from './fill-by-weight.js';
import { recencyWeights } from './recency-weights.js';
import { candidates, mandatoryOnly, type SelectionAlgorithm, type SelectionUnit } from './selection-algorithm.js';

/** Units grouped into turns: a user unit and the units up to the next user unit. */
function turnsOf(units: readonly SelectionUnit[]): SelectionUnit[][] {
  const turns: SelectionUnit[][] = [];
  for (const unit of units) {
    if (unit.role === 'user' || turns.length === 0) turns.push([unit]);
    else turns[turns.length - 1]!.push(unit);
  }
  return turns;
}

/**
 * Dependency-aware: a question and its answers (and their tool calls) are kept together.
 * Whole turns are chosen greedily by their best recency-boosted weight; leftover room is
 * then filled unit by unit.
 */
export const dependencySelection: SelectionAlgorithm = {
  name: 'dependency',
  select({ units, available, options }) {
    const kept = mandatoryOnly(units);
    const weights = recencyWeights(units, options.recencyFactor);
    const turns = turnsOf(units)
      .map((turn) => {
        const open = turn.filter((unit) => !unit.mandatory && !unit.excluded);
        return {
          open,
          complete: open.length + turn.filter((unit) => unit.mandatory).length === turn.length,
          tokens: open.reduce((sum, unit) => sum + unit.tokens, 0),
          weight: turn.reduce((best, unit) => Math.max(best, weights[unit.position]!), 0),
          position: turn[0]!.position,
        };
      })
      .filter((turn) => turn.open.length > 0 && turn.complete);
    turns.sort((a, b) => b.weight - a.weight || b.position - a.position);
    let used = 0;
    for (const turn of turns) {
      if (used + turn.tokens > available) continue;
      for (const unit of turn.open) kept[unit.position] = true;
      used += turn.tokens;
    }
    fillByWeight(candidates(units), weights, available - used, kept);
    return { kept, notes: [] };
  },
};
