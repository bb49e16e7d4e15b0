// A skill catalogue, loaded from a folder of SKILL.md files or a JSON list: the public API of src/catalogue/, named
// here so that callers import one module. What each piece does is said in its own file (see DEVELOPERS.md).
export { SKILL_FILE } from './skill-folders.js';
export { loadCatalogue, loadUsableCatalogue } from './catalogue/load.js';
export { catalogueNote } from './catalogue/folder.js';
export { fieldLine, nestedFieldLine, parseFrontmatter } from './catalogue/frontmatter.js';
export { SKILL_STATES } from './catalogue/metadata.js';
export { skillBodyLine, skillFieldLine } from './catalogue/origins.js';
export { listResources, readResourceText } from './catalogue/resources.js';
export { TOOL_PROFILES_FILE } from './catalogue/tool-profiles.js';
export { assertUsable, formatProblem, sortProblems } from './catalogue/problems.js';
export { compareStrings } from './catalogue/order.js';
export { displayPath } from './catalogue/paths.js';
