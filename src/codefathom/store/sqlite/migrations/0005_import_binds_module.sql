-- Version 5: whether an import binds a module itself (`import a.b`, `from pkg import submodule`), so
-- that binding can trust the stored resolution instead of resolving every import again.
ALTER TABLE imports ADD COLUMN binds_module INTEGER NOT NULL DEFAULT 0;
