// Types shared across module boundaries: the types of src/types/, named here so that callers import one module.
// Each module owns its logic; these files only say what flows between them (see DEVELOPERS.md).
export type * from './types/catalogue.js';
export type * from './types/requests.js';
export type * from './types/chat.js';
export type * from './types/embeddings.js';
export type * from './types/decisions.js';
export type * from './types/languages.js';
export type * from './types/results.js';
export type * from './types/hosts.js';
export type * from './types/improve.js';
export type * from './types/quality.js';
export type * from './types/metrics.js';
export type * from './types/gate.js';
export type * from './types/token-audit.js';
export type * from './types/progress.js';
