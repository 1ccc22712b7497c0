-- Version 4: deleting a file's symbols sets imports' target_symbol_id to NULL; without an index
-- every deleted symbol scanned every import.
CREATE INDEX imports_target_symbol ON imports(target_symbol_id);
