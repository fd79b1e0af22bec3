// Types of eslint.boundaries.js for the TypeScript that reads it (test/lint).
import type { Linter } from 'eslint';

export declare const layers: string[][];
export declare const operatorMayImport: string[];
export declare const boundaries: Linter.Config[];
