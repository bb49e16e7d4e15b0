// The chat client every command calls models through, and the embedder: the public API of src/client/, named here
// so that callers import one module. What each piece does is said in its own file (see DEVELOPERS.md).
export { createChatClient } from './client/chat-client.js';
export { unansweredError } from './client/chat.js';
export { cacheModes, chatCacheKey } from './client/cache-modes.js';
export { availableChatProvider, modelPlan, parseThinking, resolveConfig, withDefaults, type ResolvedConfig } from './client/provider-config.js';
export { BudgetExceededError, CacheMissError, cacheMissFailure, DryRunError } from './client/errors.js';
export { ESTIMATED_OUTPUT_TOKENS, estimateInputTokens, estimatePrefixTokens } from './client/estimate.js';
export { formatStats } from './client/stats.js';
export type { ChatCaller, ChatClient, ChatOptions, ChatResult, ClientRequest, ClientStats, ClientTuning, DryRunReport } from './client/types.js';
export { backoffMs, retryPolicy, withRetries, Pacer, type RetryPolicy } from './client/retry.js';
export { RunStoppedError, explainFailure, TRIP_AFTER } from './client/breaker.js';
export { createEmbedder, type Embedder } from './client/embedder.js';
