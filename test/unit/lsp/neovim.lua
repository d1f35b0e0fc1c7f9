-- Drives `kgraph lsp` from headless Neovim (a third-party LSP client): opens the file given in
-- $KGRAPH_LSP_FILE, waits for the server's diagnostics, asks for a completion after `${` and writes
-- what Neovim received as JSON to $KGRAPH_LSP_OUT. Neovim 0.7 API (Debian's package).
local file = os.getenv('KGRAPH_LSP_FILE')
local out = os.getenv('KGRAPH_LSP_OUT')
local root = os.getenv('KGRAPH_ROOT')
local result = { diagnostics = {}, completion = {}, error = vim.NIL }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'kgraph',
    cmd = { 'node', root .. '/bin/kgraph.js', 'lsp', '--stdio' },
    root_dir = root,
  })
  vim.lsp.buf_attach_client(buf, id)
  vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(result.diagnostics, { code = d.code, lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message })
  end
  -- Completion after the `${` of the line that holds the marker `${service`.
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, l in ipairs(lines) do
    local s = l:find('${service', 1, true)
    if s then
      local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = i - 1, character = s + 1 } }
      local responses = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, 10000) or {}
      for _, r in pairs(responses) do
        local items = r.result and (r.result.items or r.result) or {}
        for _, item in ipairs(items) do table.insert(result.completion, item.label) end
      end
      break
    end
  end
end)
if not ok then result.error = tostring(err) end
finish()
