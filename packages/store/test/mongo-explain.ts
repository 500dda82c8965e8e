import type { CommandStartedEvent, Db, Document } from 'mongodb';

/** What mongod's explain (executionStats) says of one find the store sent. */
export interface FindCost {
  collection: string;
  keysExamined: number;
  docsExamined: number;
  returned: number;
  /** The stages of the winning plan, depth first (IXSCAN, FETCH, SORT_MERGE, COLLSCAN...). */
  stages: string[];
  /** The names of the indexes its index scans read. */
  indexes: string[];
}

function walk(stage: Document | undefined, out: { stages: string[]; indexes: string[] }): void {
  if (!stage) return;
  if (stage.queryPlan) return walk(stage.queryPlan as Document, out); // a plan of the slot-based engine
  out.stages.push(String(stage.stage));
  if (stage.stage === 'IXSCAN') out.indexes.push(String(stage.indexName));
  walk(stage.inputStage as Document | undefined, out);
  for (const input of (stage.inputStages as Document[] | undefined) ?? []) walk(input, out);
}

/** The fields of a sent find that its plan and its cost depend on. */
const FIND_FIELDS = ['find', 'filter', 'sort', 'projection', 'limit', 'skip', 'hint', 'collation'];

/**
 * Has mongod explain, with executionStats, every `find` of `collection` among the sent commands, as sent
 * (without maxTimeMS: the cost is what is measured, not the budget). Explain runs a query to its end, while a
 * find without `limit` does the work of one batch per round trip, and the store stops reading once it has what
 * it needs: such a find is explained with its `batchSize` as the limit, the cost of its first batch.
 */
export async function costsOf(db: Db, sent: CommandStartedEvent[], collection: string): Promise<FindCost[]> {
  const costs: FindCost[] = [];
  for (const event of sent) {
    if (event.commandName !== 'find' || event.command.find !== collection) continue;
    const command = Object.fromEntries(FIND_FIELDS.filter((f) => event.command[f] !== undefined).map((f) => [f, event.command[f]]));
    if (command.limit === undefined && event.command.batchSize !== undefined) command.limit = event.command.batchSize;
    const answer = await db.command({ explain: command, verbosity: 'executionStats' });
    const out = { stages: [] as string[], indexes: [] as string[] };
    walk(answer.queryPlanner?.winningPlan as Document | undefined, out);
    const stats = answer.executionStats as Document;
    costs.push({
      collection, keysExamined: Number(stats.totalKeysExamined), docsExamined: Number(stats.totalDocsExamined),
      returned: Number(stats.nReturned), stages: out.stages, indexes: [...new Set(out.indexes)],
    });
  }
  return costs;
}
