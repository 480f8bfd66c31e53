// Schemas of the console's routes (docs/console.md, "How it is built and served").
import { Type } from '@sinclair/typebox';

/** The path of a file under /console/ (relative to the build directory). */
export const ConsoleFileParams = Type.Object({ '*': Type.String({ maxLength: 300 }) });
