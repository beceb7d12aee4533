// The Python modules of models/train/ import one another in one direction
// only: no circle, not even one closed by an import inside a function
// (which works only as long as that function runs after both modules
// loaded). Read with Python's own parser (ast), every import statement of
// every file, at any depth; tests/support/ and tests/bench/ scripts import
// models/train/ modules too and are checked with them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PYTHON = process.env.ALIGNSCOPE_PYTHON || '/usr/bin/python3';

// -> { modules: {name: [imported local names]}, cycles: [[a, b, ..., a]] }
const SCRIPT = String.raw`
import ast, glob, json, os, sys
files = {}
for d in ("models/train", "tests/support", "tests/bench"):
    for p in sorted(glob.glob(os.path.join(d, "*.py"))):
        files.setdefault(os.path.basename(p)[:-3], p)
graph = {}
for name, p in files.items():
    tree = ast.parse(open(p, encoding="utf-8").read(), p)
    deps = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            deps.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            deps.add(node.module.split(".")[0])
    graph[name] = sorted(d for d in deps if d in files and d != name)
cycles, state = [], {}
def visit(n, stack):
    state[n] = 1
    stack.append(n)
    for m in graph[n]:
        if state.get(m) == 1:
            cycles.append(stack[stack.index(m):] + [m])
        elif m not in state:
            visit(m, stack)
    stack.pop()
    state[n] = 2
for n in graph:
    if n not in state:
        visit(n, [])
print(json.dumps({"modules": graph, "cycles": cycles}))
`;

test('no import circle among the Python modules (models/train, tests/support, tests/bench)', () => {
  const r = spawnSync(PYTHON, ['-c', SCRIPT], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { modules, cycles } = JSON.parse(r.stdout);
  // The graph was read: decode.py's twins use the loader, export.py its format definitions.
  assert.ok(modules.decode.includes('alsc_to_torch') && modules.alsc_to_torch.includes('export'), JSON.stringify(modules));
  assert.deepEqual(cycles.map((c) => c.join(' -> ')), []);
});
