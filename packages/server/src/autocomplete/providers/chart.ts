// Options from the patient's chart (src/chart/options.ts): active conditions, active
// medications, open goals of the command's own patient.
import { chartSource } from '../../chart/options.ts';
import type { OptionProvider, OptionSource } from '../types.ts';

export const chartProvider: OptionProvider<Extract<OptionSource, { kind: 'chart' }>> = {
  search: (source, ctx, term, limit) => chartSource.search(source.entity, ctx.db, ctx.patientKey, term, limit),
  resolve: (source, ctx, picked) => chartSource.resolve(source.entity, ctx.db, ctx.patientKey, picked.value),
};
