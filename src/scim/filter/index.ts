export { parseFilter, parsePatchPath, parseAttrPath, type FilterNode, type AttrPath, type CompareOp, type FilterValue, type PatchPath } from "./parser";
export { compileFilter, pathText, type AttributeResolver, type ScalarAttribute, type MultiValuedAttribute, type AttributeType, type CompileOptions } from "./compiler";
