// Tests run the real handlers; keep Powertools quiet (metrics are asserted through spies, not stdout).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_DEV ??= 'false';
