-- Drives `amlint lsp` from a real Neovim, headless: opens a pipeline job in a workspace it
-- writes, and checks diagnostics, completion, definition, references, symbols, folding,
-- hover, code actions and file watching as Neovim's own client sees them.
--
-- Usage (Neovim 0.11; not part of `cargo test`):
--   AMLINT=target/debug/amlint nvim --headless --clean -l scripts/nvim-lsp-smoke.lua [config|start]
-- `config` (default) sets the server up with 0.11's vim.lsp.config/vim.lsp.enable,
-- `start` with the vim.lsp.start autocommand documented for 0.8-0.10 (docs/lsp.md).
-- Prints one line per check and exits 1 when one fails.

local amlint = vim.fn.fnamemodify(os.getenv('AMLINT') or 'amlint', ':p')
if vim.fn.executable(amlint) ~= 1 then
  amlint = 'amlint'
end
local setup = arg[1] or 'config'
local failures = 0

local function inspect(x)
  return vim.inspect(x, { newline = ' ', indent = '' })
end

local function check(what, ok, detail)
  print(string.format('%s %s%s', ok and 'ok  ' or 'FAIL', what, detail and (': ' .. detail) or ''))
  if not ok then
    failures = failures + 1
  end
end

-- The workspace.
local root = vim.fn.resolve(vim.fn.tempname())
local function write(name, lines)
  local path = root .. '/' .. name
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile(lines, path)
  return path
end
vim.fn.mkdir(root .. '/.git', 'p')
write('amlint.toml', { '[amlint]' })
write('compute/gpu.yml', {
  '$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json',
  'name: gpu-cluster',
  'type: amlcompute',
  'size: Standard_NC6s_v3',
})
write('env/sklearn.yml', {
  '$schema: https://azuremlschemas.azureedge.net/latest/environment.schema.json',
  'name: sklearn',
  'version: 1',
  'image: mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04',
})
write('src/train.py', { 'print(1)' })
local pipeline = write('pipeline.yml', {
  '$schema: https://azuremlschemas.azureedge.net/latest/pipelineJob.schema.json',
  'type: pipeline',
  'display_name: café 日本🎉',
  'settings:',
  '  default_compute: azureml:gpu-cluster',
  'inputs:',
  '  raw: {type: uri_folder, path: ./src}',
  'jobs:',
  '  prep:',
  '    type: command',
  '    command: echo 日本🎉 ${{inputs.src}}',
  '    code: ./src',
  '    environment: azureml:sklearn:1',
  '    compute: azureml:cpu-cluster',
  '    inputs:',
  '      src: ${{parent.inputs.raw}}',
  '    outputs:',
  '      out: {type: uri_folder}',
  '  train:',
  '    type: command',
  '    command: python train.py ${{inputs.data}}',
  '    environment: azureml:sklearn:1',
  '    inputs:',
  '      data: ${{parent.jobs.prep.outputs.out}}',
  'descriptin: x',
})

-- The setups docs/lsp.md documents.
local capabilities = vim.lsp.protocol.make_client_capabilities()
capabilities.workspace.didChangeWatchedFiles = { dynamicRegistration = true }
-- AMLINT_NVIM_NO_WATCH=1: Neovim's default on Linux (the file-watching check then fails).
local watch = os.getenv('AMLINT_NVIM_NO_WATCH') ~= '1'
capabilities.workspace.didChangeWatchedFiles.dynamicRegistration = watch
if setup == 'config' then
  vim.lsp.config('amlint', {
    cmd = { amlint, 'lsp' },
    filetypes = { 'yaml', 'json' },
    root_markers = { 'amlint.toml', '.amlint.toml', 'pyproject.toml', '.git' },
    capabilities = { workspace = { didChangeWatchedFiles = { dynamicRegistration = watch } } },
  })
  vim.lsp.enable('amlint')
else
  vim.api.nvim_create_autocmd('FileType', {
    pattern = { 'yaml', 'json' },
    callback = function(args)
      local marker = vim.fs.find({ 'amlint.toml', '.amlint.toml', 'pyproject.toml', '.git' },
        { upward = true, path = vim.fs.dirname(vim.api.nvim_buf_get_name(args.buf)) })[1]
      vim.lsp.start({
        name = 'amlint',
        cmd = { amlint, 'lsp' },
        root_dir = marker and vim.fs.dirname(marker) or vim.fn.getcwd(),
        capabilities = capabilities,
      })
    end,
  })
end
vim.cmd('filetype on')

print(string.format('Neovim %s, setup %s, server %s', tostring(vim.version()), setup, amlint))
vim.cmd.edit(pipeline)
local buf = vim.api.nvim_get_current_buf()
check('attached', vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = buf, name = 'amlint' }) > 0
end))
local client = vim.lsp.get_clients({ bufnr = buf, name = 'amlint' })[1]
if not client then
  os.exit(1)
end

local function codes(b)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(b)) do
    table.insert(out, tostring(d.code) .. '@' .. (d.lnum + 1) .. ':' .. (d.col + 1))
  end
  table.sort(out)
  return out
end
local function has(list, prefix)
  for _, x in ipairs(list) do
    if vim.startswith(x, prefix) then
      return true
    end
  end
  return false
end

-- Diagnostics: the missing compute (AML203) and the misspelt key (AML101), each once.
vim.wait(10000, function()
  return has(codes(buf), 'AML101') and has(codes(buf), 'AML203')
end)
vim.wait(500, function() return false end)
local found = codes(buf)
check('diagnostics', has(found, 'AML101@25:1') and has(found, 'AML203@14:'), table.concat(found, ' '))
local seen, twice = {}, {}
for _, c in ipairs(found) do
  if seen[c] then
    table.insert(twice, c)
  end
  seen[c] = true
end
check('each diagnostic shown once', #twice == 0, #twice > 0 and table.concat(twice, ' ') or nil)

-- A request at a (1-based line, byte column) position, through Neovim's own conversion
-- to UTF-16.
local function request(method, line, col, extra)
  vim.api.nvim_win_set_cursor(0, { line, col })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local text = vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1]
  if col >= #text then
    -- Normal mode keeps the cursor on the last character; completion is asked after it.
    params.position.character = vim.str_utfindex(text, client.offset_encoding)
  end
  for k, v in pairs(extra or {}) do
    params[k] = v
  end
  local answers = vim.lsp.buf_request_sync(buf, method, params, 5000) or {}
  local answer = answers[client.id] or {}
  return answer.result, answer.err
end
local function line_of(n)
  return vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1]
end
local function col_of(n, s)
  return (line_of(n):find(s, 1, true) or 1) - 1
end

-- Completion: keys of a step, a compute name, an environment, a binding after non-ASCII.
local function labels(result)
  local items = result and (result.items or result) or {}
  local out = {}
  for _, i in ipairs(items) do
    table.insert(out, i.label)
  end
  return out
end
local result = request('textDocument/completion', 13, #line_of(13))
check('completion of environments', vim.tbl_contains(labels(result), 'azureml:sklearn@latest'),
  table.concat(labels(result), ' '))
result = request('textDocument/completion', 5, #line_of(5))
check('completion of computes', vim.tbl_contains(labels(result), 'azureml:gpu-cluster'),
  table.concat(labels(result), ' '))
vim.api.nvim_buf_set_lines(buf, 10, 11, false, { '    command: echo 日本🎉 ${{inputs.' })
result = request('textDocument/completion', 11, #line_of(11))
check('completion in a binding after 日本🎉', vim.deep_equal(labels(result), { 'src' }),
  table.concat(labels(result), ' ') .. (result and result.items and result.items[1]
    and (' range ' .. inspect(result.items[1].textEdit.range)) or ''))
vim.api.nvim_buf_set_lines(buf, 10, 11, false, { '    command: echo 日本🎉 ${{inputs.src}}' })

-- Definition: through vim.lsp.buf.definition(), as `<C-]>` does: the cursor lands there.
vim.api.nvim_win_set_cursor(0, { 13, col_of(13, 'sklearn') })
vim.lsp.buf.definition()
vim.wait(5000, function()
  return vim.api.nvim_buf_get_name(0):find('env/sklearn.yml', 1, true) ~= nil
end)
check('definition of an environment (jumps)', vim.api.nvim_buf_get_name(0):find('env/sklearn.yml', 1, true) ~= nil,
  vim.api.nvim_buf_get_name(0) .. ' ' .. inspect(vim.api.nvim_win_get_cursor(0)))
vim.cmd.buffer(buf)
result = request('textDocument/definition', 11, col_of(11, '${{inputs.src') + 4)
local first = result and result[1]
check('definition of a binding after 日本🎉', first and first.range.start.line == 15 and first.range.start.character == 6,
  inspect(first and first.range))

-- References of a step output, from its key.
result = request('textDocument/references', 18, col_of(18, 'out'), { context = { includeDeclaration = true } })
local places = {}
for _, l in ipairs(result or {}) do
  table.insert(places, (l.range.start.line + 1) .. ':' .. l.range.start.character)
end
table.sort(places)
check('references of a binding', vim.deep_equal(places, { '18:6', '24:12' }), table.concat(places, ' '))

-- Symbols and folding.
result = request('textDocument/documentSymbol', 1, 0)
local names = {}
for _, s in ipairs(result or {}) do
  table.insert(names, s.name)
end
check('document symbols', vim.tbl_contains(names, 'jobs') and vim.tbl_contains(names, 'inputs'),
  table.concat(names, ' '))
result = request('textDocument/foldingRange', 1, 0)
check('folding ranges', result and #result > 3, result and (#result .. ' ranges'))
if vim.lsp.foldexpr then
  vim.wo.foldmethod = 'expr'
  vim.wo.foldexpr = 'v:lua.vim.lsp.foldexpr()'
  vim.wait(3000, function()
    return vim.fn.foldlevel(10) > 0
  end)
  check('vim.lsp.foldexpr folds', vim.fn.foldlevel(10) > 0, 'foldlevel(10) = ' .. vim.fn.foldlevel(10))
end

-- Hover and a quick fix on the misspelt key.
result = request('textDocument/hover', 25, 3)
local hover = result and result.contents and (result.contents.value or vim.inspect(result.contents)) or ''
check('hover on a finding', hover:find('AML101', 1, true) ~= nil, hover:sub(1, 60):gsub('\n', ' '))
local diagnostics = vim.lsp.diagnostic.from(vim.diagnostic.get(buf, { lnum = 24 }))
result = request('textDocument/codeAction', 25, 3, {
  range = { start = { line = 24, character = 0 }, ['end'] = { line = 24, character = 10 } },
  context = { diagnostics = diagnostics },
})
local titles = {}
for _, a in ipairs(result or {}) do
  table.insert(titles, a.title)
end
check('code actions', #titles > 0 and titles[1]:find('description', 1, true) ~= nil, table.concat(titles, ' | '))

-- File watching: the missing compute appears on disk; the open job's AML203 goes.
write('compute/cpu.yml', {
  '$schema: https://azuremlschemas.azureedge.net/latest/amlCompute.schema.json',
  'name: cpu-cluster',
  'type: amlcompute',
  'size: Standard_DS3_v2',
})
local gone = vim.wait(10000, function()
  return not has(codes(buf), 'AML203')
end)
check('a compute created on disk is seen (didChangeWatchedFiles)', gone, table.concat(codes(buf), ' '))

vim.lsp.stop_client(client.id)
vim.wait(2000, function()
  return client:is_stopped()
end)
vim.fn.delete(root, 'rf')
print(failures == 0 and 'all passed' or (failures .. ' failed'))
os.exit(failures == 0 and 0 or 1)
