// Checks the relative links of the repository's Markdown: every link or image to a file of the repository
// must name one that exists, and every `#anchor` must name a heading (as GitHub slugs it) or an HTML anchor of
// the file it points to. Absolute URLs are not fetched (no network in CI).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer } from 'marked';

/** Folders that hold no documentation of ours (dependencies, build output, local data). */
const SKIPPED = new Set(['node_modules', 'dist', 'tmp', 'data', 'coverage', '.git', '.nx']);

/** Every Markdown file of the repository, as paths relative to root, in a stable order. */
export function markdownFiles(root) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) walk(join(dir, entry.name));
      else if (entry.isFile() && entry.name.endsWith('.md')) found.push(relative(root, join(dir, entry.name)));
    }
  };
  walk(root);
  return found.sort();
}

/** The link and image targets of a Markdown text (code blocks and code spans excluded). */
export function linkTargets(text) {
  const targets = [];
  const visit = (tokens) => {
    for (const token of tokens ?? []) {
      if (token.type === 'link' || token.type === 'image') targets.push(token.href);
      visit(token.tokens);
      if (token.type === 'list') token.items.forEach((item) => visit(item.tokens));
      if (token.type === 'table') [token.header, ...token.rows].flat().forEach((cell) => visit(cell.tokens));
    }
  };
  visit(new Lexer().lex(text));
  return targets;
}

/** The anchors a Markdown text offers: its headings as GitHub slugs them, and `<a id|name="…">`. */
export function anchorsOf(text) {
  const slugger = new GithubSlugger();
  const anchors = new Set();
  const plain = (tokens) => (tokens ?? []).map((t) => (t.tokens ? plain(t.tokens) : (t.text ?? ''))).join('');
  for (const token of new Lexer().lex(text)) {
    if (token.type === 'heading') anchors.add(slugger.slug(plain(token.tokens)));
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
  return anchors;
}

/** Every broken relative link of the given files (paths relative to root), as "file: target (reason)". */
export function brokenLinks(root, files) {
  const read = (path) => readFileSync(join(root, path), 'utf8');
  const anchorCache = new Map();
  const anchors = (path) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(read(path)));
    return anchorCache.get(path);
  };
  const problems = [];
  for (const file of files) {
    for (const target of linkTargets(read(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ... : not ours to check
      const [pathPart, anchor] = target.split('#', 2);
      const path = pathPart ? relative(root, resolve(root, dirname(file), decodeURI(pathPart))) : file;
      if (path.startsWith('..')) {
        problems.push(`${file}: ${target} (outside the repository)`);
        continue;
      }
      if (pathPart && !existsSync(join(root, path))) {
        problems.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!path.endsWith('.md') || statSync(join(root, path)).isDirectory()) {
        problems.push(`${file}: ${target} (an anchor into something that is not a Markdown file)`);
      } else if (!anchors(path).has(anchor)) {
        problems.push(`${file}: ${target} (no heading or anchor "${anchor}" in ${path})`);
      }
    }
  }
  return problems;
}
