/**
 * The console's page of the specification's sections (`/console/spec-map`): docs/spec-map.md,
 * bundled at the build, shown as the repository shows it. The other pages link each section they
 * cite here (`specLink`).
 */
import '../common/style.css';
import MAP from '../../../../docs/spec-map.md?raw';
import { byId, fill, h } from '../common/dom.js';
import { type Inline, parseSpecMap } from './parse.js';

function inline(run: Inline): Node {
  switch (run.kind) {
    case 'text':
      return document.createTextNode(run.text);
    case 'code':
      return h('code', {}, run.text);
    case 'link':
      return h(
        'a',
        run.href.startsWith('#') ? { href: run.href } : { href: run.href, rel: 'noreferrer' },
        run.text,
      );
    case 'anchor':
      return h('span', { id: run.id, class: 'anchor' });
  }
}

const blocks = parseSpecMap(MAP).map((b) => {
  if (b.kind === 'heading') {
    return h(b.level === 1 ? 'h1' : b.level === 2 ? 'h2' : 'h3', { id: b.id }, b.text);
  }
  if (b.kind === 'paragraph') return h('p', {}, ...b.inlines.map(inline));
  return h(
    'table',
    { class: 'spec-map' },
    h('thead', {}, h('tr', {}, ...b.head.map((c) => h('th', {}, ...c.map(inline))))),
    h(
      'tbody',
      {},
      ...b.rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, ...c.map(inline))))),
    ),
  );
});
fill(byId('map'), ...blocks);
// The section asked for, now that it exists.
if (location.hash.length > 1) document.getElementById(location.hash.slice(1))?.scrollIntoView();
