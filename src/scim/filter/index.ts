export { parseFilter, parsePatchPath, parseAttrPath, type FilterNode, type AttrPath, type CompareOp, type FilterValue, type PatchPath } from "./parser";
export { assertFilterCost, countTerms, isAnchored, FILTER_COST_BUDGET, type IsIndexProbe } from "./cost";
export { compileFilter, pathText, type AttributeResolver, type ScalarAttribute, type MultiValuedAttribute, type AttributeType, type CompileOptions } from "./compiler";
