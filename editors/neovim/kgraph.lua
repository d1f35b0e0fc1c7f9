-- kgraph lsp for Neovim 0.7 and later: starts one `kgraph lsp` and attaches every YAML buffer to it.
-- Copy to ~/.config/nvim/lua/kgraph.lua and call require('kgraph').setup({}) from init.lua
-- (see editors/neovim/README.md; Neovim 0.11 can use vim.lsp.config instead).
local M = {}

function M.setup(opts)
  opts = opts or {}
  local cmd = opts.cmd or { 'kgraph', 'lsp', '--stdio' }
  vim.api.nvim_create_autocmd('FileType', {
    pattern = 'yaml',
    callback = function(args)
      if not (M.client_id and vim.lsp.get_client_by_id(M.client_id)) then
        M.client_id = vim.lsp.start_client({ name = 'kgraph', cmd = cmd, root_dir = vim.fn.getcwd() })
      end
      vim.lsp.buf_attach_client(args.buf, M.client_id)
      -- <C-x><C-o> completes from the server; K hovers, gd goes to the node, gr lists its readers.
      vim.bo[args.buf].omnifunc = 'v:lua.vim.lsp.omnifunc'
      local map = function(lhs, fn) vim.keymap.set('n', lhs, fn, { buffer = args.buf }) end
      map('K', vim.lsp.buf.hover)
      map('gd', vim.lsp.buf.definition)
      map('gr', vim.lsp.buf.references)
      map('<leader>ca', vim.lsp.buf.code_action)
    end,
  })
end

return M
