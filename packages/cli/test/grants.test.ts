// The hops of a policy against the key log (`hopGrantProblems`): each hop not listed with
// live/hop, revoked, or without the energy/ label of the class it is known to state, in its
// pathway, in the hop agent's own words.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openRoom } from '@wai-steering/verifier';
import { readPolicy, unwrap } from '@wai-steering/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { hopGrantProblems } from '../src/internal/grants.js';
import { buildExample, type Example } from './example.js';
import { tempDir } from './helpers.js';

let dir: string;
let ex: Example;
const read = (f: string) => new Uint8Array(readFileSync(join(dir, f)));

beforeAll(async () => {
  dir = tempDir();
  ex = await buildExample(dir);
});

describe('hopGrantProblems', () => {
  it('finds none where the key log grants every hop what it states', () => {
    const room = unwrap(openRoom(read('room.wrd'), read('keylog-2.wkl')));
    const policy = unwrap(readPolicy(read('policy.wsp')));
    expect(hopGrantProblems(room, policy.pathways)).toEqual([]);
    expect(hopGrantProblems(room, policy.pathways, () => 4)).toEqual([]);
  });

  it('names a hop not listed (the first head has no hop-c-edge), and a class not granted', () => {
    const room = unwrap(openRoom(read('room.wrd'), read('keylog-0.wkl')));
    const policy = unwrap(readPolicy(read('policy.wsp')));
    const problems = hopGrantProblems(room, policy.pathways);
    expect(problems.map((p) => [p.pathway, p.hop, p.key])).toEqual([
      ['cdn-b-eu', 0, ex.keys['hop-c-edge']],
    ]);
    expect(problems[0]!.text).toBe(
      `pathway cdn-b-eu, hop 1 (edge ${ex.keys['hop-c-edge']}): the key log (seq 0) does not list the hop's key ${ex.keys['hop-c-edge']}: add it with live/hop; every record it signs is refused, so cdn-b-eu can never have a figure`,
    );
    // hop-a-edge stating ModelBased: its entry grants energy/OnChipCounter only.
    const model = hopGrantProblems(room, policy.pathways, (k) =>
      k === ex.keys['hop-a-edge'] ? 2 : undefined,
    );
    expect(model.map((p) => p.key)).toEqual([ex.keys['hop-a-edge'], ex.keys['hop-c-edge']]);
    expect(model[0]!.text).toMatch(/does not grant energy\/ModelBased for the configured class/);
  });
});
