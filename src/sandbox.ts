// Running a skill's scripts isolated (bwrap only, else refused unless explicitly unsandboxed): the public API of
// src/sandbox/, named here so that callers import one module. What each piece does is said in its own file (see
// DEVELOPERS.md).
export { runScript } from './sandbox/run.js';
export { detectSandbox, noSandboxWarning } from './sandbox/detect.js';
export { bwrapWorks, NOBODY } from './sandbox/bwrap-probe.js';
export { versionAtLeast } from './sandbox/bwrap-version.js';
export { SANDBOX_SKILL_DIR, SANDBOX_SOURCE_DIR } from './sandbox/bwrap-args.js';
export { isInside } from './sandbox/copy.js';
export { findExecutable, interpreterFor, SUPPORTED_SCRIPT_EXTENSIONS } from './sandbox/executables.js';
export { DEFAULT_MAX_FILE_MB, DEFAULT_MAX_MEMORY_MB, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_PROCS, DEFAULT_TIMEOUT_MS } from './sandbox/limits.js';
export type { SandboxKind, SandboxOptions, ScriptResult } from './sandbox/types.js';
