// The function extensions of RFC 9535 section 2.4: their declared types, shared by the type check and the evaluator.

/** ValueType (a JSON value or Nothing), LogicalType (true/false) or NodesType (a nodelist). */
export type DeclaredType = 'value' | 'logical' | 'nodes';

export interface FunctionSignature {
  parameters: readonly DeclaredType[];
  result: DeclaredType;
}

export const FUNCTION_SIGNATURES = {
  length: { parameters: ['value'], result: 'value' },
  count: { parameters: ['nodes'], result: 'value' },
  match: { parameters: ['value', 'value'], result: 'logical' },
  search: { parameters: ['value', 'value'], result: 'logical' },
  value: { parameters: ['nodes'], result: 'value' },
} as const satisfies Record<string, FunctionSignature>;

export type FunctionName = keyof typeof FUNCTION_SIGNATURES;

export const isFunctionName = (name: string): name is FunctionName =>
  Object.hasOwn(FUNCTION_SIGNATURES, name);
