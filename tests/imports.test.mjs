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

// Two rules of loading, read the same way:
//  - our own saves are read through checkpoints.load_own (PyTorch 2.6's default
//    torch.load admits only the types on its list); only convert_tutorial.py
//    reads a file from elsewhere (a student's) with the default;
//  - a script of models/train/ (one with a __main__ block) that imports torch
//    or numpy at the top level imports openblas_core before them, as does any
//    other file that imports it at all: OpenBLAS reads its kernel choice when
//    it is loaded, so a script run by hand gets it too.
const RULES = String.raw`
import ast, glob, json, os
loads, late = [], []
for d in ("models/train", "tests/support", "tests/bench"):
    for p in sorted(glob.glob(os.path.join(d, "*.py"))):
        tree = ast.parse(open(p, encoding="utf-8").read(), p)
        name = os.path.basename(p)
        for node in ast.walk(tree):
            f = getattr(node, "func", None)
            if (isinstance(node, ast.Call) and isinstance(f, ast.Attribute) and f.attr == "load"
                    and isinstance(f.value, ast.Name) and f.value.id == "torch"
                    and name not in ("checkpoints.py", "convert_tutorial.py")):
                loads.append(f"{p}:{node.lineno}")
        first = {}
        for node in tree.body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            for n in names:
                first.setdefault(n.split(".")[0], node.lineno)
        script = d == "models/train" and any(
            isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__" for node in tree.body)
        if "openblas_core" in first or (script and ("torch" in first or "numpy" in first)):
            at = first.get("openblas_core", 1 << 30)
            late += [f"{p}: {lib} (line {first[lib]}) before openblas_core"
                     + (f" (line {at})" if at < 1 << 30 else " (not imported)")
                     for lib in ("torch", "numpy") if first.get(lib, 1 << 30) < at]
print(json.dumps({"loads": loads, "late": late}))
`;

test('our saves load through checkpoints.load_own; openblas_core comes before torch and numpy', () => {
  const r = spawnSync(PYTHON, ['-c', RULES], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { loads, late } = JSON.parse(r.stdout);
  assert.deepEqual(loads, [], 'torch.load outside checkpoints.load_own');
  assert.deepEqual(late, []);
});
