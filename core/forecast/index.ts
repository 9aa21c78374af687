/** core/forecast: Monte Carlo spend forecast (pure; time and seed come in as arguments). */
export { summarizeHistory, PRIOR_DAY_DISPERSION } from './summarize';
export { simulate } from './simulate';
export { ForecastError } from './errors';
export { SeededRandom } from './random';
export { HORIZON_IDS } from './types';
export type {
  BudgetCrossing,
  CallRecord,
  CostDistribution,
  Forecast,
  HistoryInput,
  HistorySummary,
  HorizonForecast,
  HorizonId,
  HourlyAggregate,
  SimulationOptions,
  SummarizeOptions,
} from './types';
