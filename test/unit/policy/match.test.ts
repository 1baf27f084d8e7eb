import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { createMatcher, GLOB_NAME_CHARS, globProblem, isGlob, literalKey, nameGlob } from '../../../src/policy/match.js';
import fc from '../../helpers/fast-check.js';

describe('isGlob', () => {
  it.each([
    ['get_weather', false],
    ['get-weather.v2/x', false],
    ['get_*', true],
    ['file?', true],
    ['[ab]_x', true],
    ['{read,write}_file', true],
    ['!secret', true],
  ])('%s → %s', (key, expected) => {
    expect(isGlob(key)).toBe(expected);
  });
});

describe('createMatcher', () => {
  const matcher = createMatcher(['*_file', 'read_*', 'read_file', '{list,tree}_dir*']);

  it('exact names win over earlier globs', () => {
    expect(matcher.match('read_file')).toBe('read_file');
  });
  it('then the first glob in file order', () => {
    expect(matcher.match('write_file')).toBe('*_file');
    expect(matcher.match('read_dir')).toBe('read_*');
    expect(matcher.match('tree_directory')).toBe('{list,tree}_dir*');
  });
  it('no key → undefined', () => {
    expect(matcher.match('delete')).toBeUndefined();
  });
  it('tool names with dots and slashes are plain characters for *', () => {
    expect(createMatcher(['ns.*']).match('ns.a/b')).toBe('ns.*');
  });
  it('"*" governs every name an upstream may choose: dot segments, slashes and newlines too (review finding)', () => {
    const all = createMatcher(['*']);
    for (const name of ['..', '.', '../x', './x', '../../etc/passwd', 'x/../y', 'a\nb', '\n', '.hidden', 'a/b', '']) expect([name, all.match(name)]).toEqual([name, '*']);
    expect(createMatcher(['a?b']).match('a/b')).toBe('a?b');
    expect(createMatcher(['files/*']).match('files/../x')).toBe('files/*');
    expect(createMatcher(['x*']).match('..')).toBeUndefined();
  });
  it('a leading ! negates, and !(…) is still an extglob', () => {
    const m = createMatcher(['!secret*']);
    expect(m.match('secret_x')).toBeUndefined();
    expect(m.match('../other')).toBe('!secret*');
    expect(createMatcher(['!(a|b)']).match('a')).toBeUndefined();
    expect(createMatcher(['!(a|b)']).match('c')).toBe('!(a|b)');
  });
});

describe('globProblem', () => {
  it('is undefined for names and good globs', () => {
    expect(globProblem('a_b')).toBeUndefined();
    expect(globProblem('a_*')).toBeUndefined();
    for (const good of ['read_[abc]*', '[]x]_*', '[!a]*', '{read,write}_*', 'a\\[b*', '*_{x,{y,z}}']) expect(globProblem(good)).toBeUndefined();
  });

  it('reports unclosed brackets and braces, which picomatch would take literally and match nothing with (issue 25)', () => {
    expect(globProblem('read_[')).toBe('invalid glob: "[" at 6 is never closed');
    expect(globProblem('[')).toBe('invalid glob: "[" at 1 is never closed');
    expect(globProblem('{read_graph')).toBe('invalid glob: a "{" is never closed');
    expect(globProblem('read}_*')).toBe('invalid glob: "}" at 5 closes nothing');
  });
});

describe('nameGlob: globs of `*`, `?` and plain characters (matched without a regular expression)', () => {
  /** What picomatch's expression says, as nameGlob applied it before (the lead and slash stand-ins included). */
  const byPicomatch = (glob: string, name: string): boolean => {
    const asName = (t: string): string => '\uE000' + t.replaceAll('/', '\uE001');
    const re = picomatch.makeRe(asName(glob), { dot: true, nobrace: false, bash: true });
    return new RegExp(re.source, `${re.flags}s`).test(asName(name));
  };
  const globChars = fc.constantFrom('a', 'b', 'A', '0', '_', '-', '.', ':', ' ', '*', '?');
  const nameChars = fc.constantFrom('a', 'b', 'A', '0', '_', '-', '.', ':', ' ', '/', '*', '?', '\n', '$', 'é', '😀');

  it('agrees with picomatch', () => {
    fc.assert(
      fc.property(fc.array(globChars, { maxLength: 8 }), fc.array(nameChars, { maxLength: 10 }), (glob, name) => {
        const g = glob.join('');
        const n = name.join('');
        expect(nameGlob(g)(n)).toBe(byPicomatch(g, n));
        // a name made from the glob, to hit matches as often as misses
        const made = g.replaceAll('*', n.slice(0, 3)).replaceAll('?', 'x');
        expect(nameGlob(g)(made)).toBe(byPicomatch(g, made));
      }),
      { numRuns: 3000 },
    );
  });

  it('matches a name of any length, and a glob of wider syntax only names of at most GLOB_NAME_CHARS', () => {
    const long = `get${'x'.repeat(GLOB_NAME_CHARS)}by`;
    expect(nameGlob('*get*by*')(long)).toBe(true);
    expect(nameGlob('{get,put}*by')(long)).toBe(false);
    expect(nameGlob('{get,put}*by')(`get${'x'.repeat(GLOB_NAME_CHARS - 5)}by`)).toBe(true);
  });
});

describe('literalKey', () => {
  // What infer writes as the key of a tool it learnt: a name read as a glob governed other tools (regression).
  const NAMES = ['x?', '!legacy', '!!x', 'a[1', 'a]b', '{x}', '{a,b}', 'a*', '*', '?', 'q\\*', '\\!', '!(x)', '+(a)|b?', '@(a)*', '^a$!', '$$?', 'x?/y', '..?', '[!a]', 'a,b{', 'line\n*'];
  const OTHERS = ['xy', 'x', 'legacy', 'a1', 'ab', 'a', 'b', 'q', 'q\\', 'aa', '', 'x?y', '!', 'x/y', 'line\nx', 'a,b'];

  it('is the name itself when it holds no glob character', () => {
    expect(['get_weather', 'a.b/c', 'q\\'].map(literalKey)).toEqual(['get_weather', 'a.b/c', 'q\\']);
  });

  it('governs exactly its own name, whatever glob characters the name holds', () => {
    const all = [...NAMES, ...OTHERS];
    for (const name of NAMES) {
      const key = literalKey(name);
      expect([name, globProblem(key)]).toEqual([name, undefined]);
      const matcher = createMatcher([key]);
      expect([name, all.filter((other) => matcher.match(other) === key)]).toEqual([name, [name]]);
    }
  });
});
