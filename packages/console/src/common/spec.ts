/**
 * A section of the specification cited where people read it (`§6.2`, `C8`): a link to the
 * console's page that says what it is (docs/spec-map.md), never a bare number.
 */
import { sectionAnchor } from '../spec-map/parse.js';
import { h } from './dom.js';

/** The link to section `section` (`§6.2`, `C8`) on the map's page, beside the page at `base`. */
export function specLink(section: string, base = './'): HTMLAnchorElement {
  return h(
    'a',
    {
      class: 'spec',
      href: `${base}spec-map#${sectionAnchor(section)}`,
      title: `what ${section} of the specification says, in a sentence`,
    },
    section,
  );
}
