// Tests run the real handlers; keep Powertools quiet (metrics are asserted through spies, not stdout).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_DEV ??= 'false';
// This machine runs Node 20; the AWS SDK's notice that 2027 releases need Node 22 is documented in docs, not repeated per test.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Three workers beside other jobs on 2 cores: a stand-in may take more than the default 10 s to accept a
// connection (local/runtime/clients.ts). 25 s stays below the 30 s test timeout.
process.env.SPENDGUARD_LOCAL_CONNECTION_TIMEOUT_MS ??= '25000';
