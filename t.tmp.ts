import { Redis } from 'ioredis';
import { fuzzScript, differential } from './test/lua-fuzz.ts';
const r = new Redis(17100);
let bad = 0, loops = 0, errs = 0;
const t0 = Date.now();
for (let i = 0; i < Number(process.env.N ?? 300); i++) {
  const s = fuzzScript(Number(process.env.SEED ?? 1), i);
  let d;
  try { d = await differential(r, s, 'fz', 50); } catch (e) { console.log('THROW', i, (e as Error).message.slice(0, 200)); console.log(JSON.stringify(s.source).slice(0, 600)); bad++; continue; }
  if (s.loops) loops++;
  if (typeof d.plain === 'string' && d.plain.startsWith('error')) errs++;
  if (!d.same) { bad++; console.log('DIFF', i, JSON.stringify(d).slice(0, 400)); console.log(JSON.stringify(s.source).slice(0, 600)); }
}
console.log({ bad, loops, errs, ms: Date.now() - t0 });
r.disconnect();
