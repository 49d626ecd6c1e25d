// `npm run bench` imports this first: every module of src/ then loads from dist/, as the package
// ships it (compiled by tsc), in this process and in every Node process it starts. Run through
// tsx, each function a module creates also calls esbuild's `__name` helper (tsx compiles with
// keepNames), a cost no user of the built package pays and no competitor in the bench pays either.
import { register } from 'node:module';

register('./as-built-hooks.mjs', import.meta.url);
const flag = `--import=${new URL(import.meta.url).href}`;
if (!(process.env.NODE_OPTIONS ?? '').includes(flag)) process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, flag].filter(Boolean).join(' ');
