#!/usr/bin/env node
// Writes the behaviour matrix's table into docs/players.md, between its markers, from the
// observations of a run (players/captured/matrix.json, written by `pnpm test:players`); and,
// when the run also wrote players/captured/recovery.json and vhs.json, the table of the server's
// own answers and that of video.js on DASH between theirs.
//
//   node players/scripts/matrix-table.mjs [observations.json] [doc.md]
//
// A cell says when the player asked again after the row's answer (from that answer's request to
// the next steering request; "never" when none came before the run ended) and whether it then
// fetched its segments from the pathway the next manifests put first ("follows") or not.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const input = process.argv[2] ?? join(here, '..', 'captured', 'matrix.json');
const doc = process.argv[3] ?? join(here, '..', '..', 'docs', 'players.md');
const START = '<!-- matrix:start -->';
const END = '<!-- matrix:end -->';

function between(text, start, end, body) {
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) {
    console.error(`${doc}: no ${start} … ${end} markers to write the table between`);
    process.exit(1);
  }
  return text.slice(0, a) + [start, '', ...body, '', end].join('\n') + text.slice(b + end.length);
}

let text = readFileSync(doc, 'utf8');
// The matrix, when this run wrote its observations (a run of the recovery test alone writes none).
if (existsSync(input)) {
  const run = JSON.parse(readFileSync(input, 'utf8'));
  const byKey = new Map(run.observations.map((o) => [`${o.row} ${o.column}`, o]));
  const protocol = (c) => (c.content === 'hls' ? 'HLS' : 'DASH');
  const versions = run.columns.map((c) => {
    const o = run.observations.find((x) => x.player === c.player && x.version !== null);
    return o === undefined
      ? c.key
      : `${c.player} ${String(o.version)
          .replace(/^v/, '')
          .replace(/-debug$/, '')} ${protocol(c)}`;
  });

  function cell(row, o) {
    if (o === undefined) return 'not run';
    const parts = [];
    if (o.eventAtMs === null) parts.push('never made the request');
    else if (o.nextMs === null) parts.push('**never asks again**');
    else {
      parts.push(`asks again after ${(o.nextMs / 1000).toFixed(1)} s`);
      // The path when it is not the one the manifests name: a moved RELOAD-URI, or back to the
      // content description's own URI.
      const usual =
        o.nextPath === o.eventPath || (o.eventPath === '/steer' && o.nextPath === '/steer/reload');
      if (o.nextPath !== null && !usual) parts.push(`at \`${o.nextPath}\``);
    }
    if (o.reached)
      parts.push(
        row.via === undefined
          ? `follows \`${row.target}\``
          : `follows \`${row.via}\`, then \`${row.target}\``,
      );
    else
      parts.push(`**not \`${row.target}\`**${o.on === null ? '' : ` (segments from \`${o.on}\`)`}`);
    if (row.id === 'live') parts.push(`${o.updates} manifest updates`);
    const fatal = o.errors.filter((e) => /"fatal":true/.test(e));
    if (fatal.length > 0) parts.push(`${fatal.length} fatal error(s)`);
    return parts.join(', ');
  }

  const lines = [
    START,
    '',
    `| answer (TTL ${run.ttl} s before it) | ${versions.join(' | ')} |`,
    `| --- | ${run.columns.map(() => '---').join(' | ')} |`,
    ...run.rows.map(
      (row) =>
        `| ${row.title} | ${run.columns.map((c) => cell(row, byKey.get(`${row.id} ${c.key}`))).join(' | ')} |`,
    ),
    '',
    END,
  ];
  text = between(text, START, END, lines.slice(2, -2));
  console.log(`${doc}: the matrix of ${run.observations.length} observations written`);
}

const recoveryFile = join(dirname(input), 'recovery.json');
if (existsSync(recoveryFile)) {
  const rec = JSON.parse(readFileSync(recoveryFile, 'utf8'));
  const players = [...new Set(rec.results.map((r) => r.column ?? r.player))];
  const phases = [...new Set(rec.results.map((r) => r.phase))];
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const recCell = (r) => {
    if (r === undefined) return 'not run';
    const parts = [];
    const declined = [...new Set(r.declined)];
    if (declined.length > 0) parts.push(`answered ${declined.map((d) => `\`${d}\``).join(', ')}`);
    parts.push(r.answeredMs === null ? '**no 200 after**' : `200 again after ${s(r.answeredMs)}`);
    parts.push(
      r.followedMs === null
        ? `**not on \`${r.target}\`**`
        : `on \`${r.target}\` after ${s(r.followedMs)}`,
    );
    if (!r.verified) parts.push('**a manifest did not verify**');
    return parts.join(', ');
  };
  const table = [
    `| the server (real) | ${players.join(' | ')} |`,
    `| --- | ${players.map(() => '---').join(' | ')} |`,
    ...phases.map(
      (p) =>
        `| ${rec.titles[p] ?? p} | ${players.map((pl) => recCell(rec.results.find((r) => r.phase === p && (r.column ?? r.player) === pl))).join(' | ')} |`,
    ),
  ];
  text = between(text, '<!-- recovery:start -->', '<!-- recovery:end -->', table);
  console.log(
    `${doc}: the recovery of ${players.length} players through ${phases.length} phases written`,
  );
}
const vhsFile = join(dirname(input), 'vhs.json');
if (existsSync(vhsFile)) {
  const v = JSON.parse(readFileSync(vhsFile, 'utf8'));
  const title = (id) => v.titles.find((t) => t.id === id)?.title ?? id;
  const move = (m) =>
    m === undefined
      ? 'not run'
      : m.video && m.audio
        ? `follows (video and audio), from \`${m.from}\``
        : m.video
          ? 'follows (video; audio stays)'
          : m.silent
            ? '**stopped asking**'
            : `**stays on \`${m.from}\`**, its manifests putting \`${m.target}\` first`;
  const back = (r) => {
    const i = r.requests.findIndex((q) => q.session);
    return i < 0 ? 0 : r.requests.slice(i).filter((q) => !q.session).length;
  };
  const table = [
    "| video.js on DASH | to `cdn-a` | back to `cdn-b` | sessions | counted at once | asked the MPD's URI again | every manifest verified |",
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...v.variants.map(
      (r) =>
        `| ${title(r.id)} | ${move(r.moves[0])} | ${move(r.moves[1])} | ${r.sessions.length} | ${r.counted} | ${back(r)} | ${r.verified ? 'yes' : `**no**: ${r.why}`} |`,
    ),
  ];
  text = between(text, '<!-- vhs:start -->', '<!-- vhs:end -->', table);
  console.log(`${doc}: the VHS run of ${v.variants.length} pages written`);
}
writeFileSync(doc, text);
