import { parseHttpArgs, TOOLS } from '../src/index';

/** Names every plain object inherits: a query string may carry any of them. */
const INHERITED_NAMES = ['toString', 'hasOwnProperty', 'constructor', '__proto__', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

describe('REST query parameters named like inherited properties', () => {
  it.each(INHERITED_NAMES)('?%s=1 is an unknown parameter of every tool, named in a field error', (name) => {
    for (const tool of TOOLS) {
      const pathParams = Object.fromEntries(tool.http.pathParams.map((p) => [p, 'x']));
      const parsed = parseHttpArgs(tool, pathParams, { [name]: '1' });
      expect(parsed).toEqual({
        ok: false,
        errors: expect.arrayContaining([expect.objectContaining({ field: name, message: 'is not a parameter of this tool' })]),
      });
    }
  });

  it('never lets a __proto__ parameter change the prototype of the arguments', () => {
    const tool = TOOLS.find((t) => t.name === 'search_ads');
    if (!tool) throw new Error('search_ads is not in the catalogue');
    const parsed = parseHttpArgs(tool, {}, JSON.parse('{"__proto__":"1","limit":"3"}'));
    expect(parsed.ok).toBe(false);
  });
});
