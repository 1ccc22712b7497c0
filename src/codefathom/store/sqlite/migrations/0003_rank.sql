-- Version 3: PageRank of files and symbols over the bound reference graph (0 until computed).
ALTER TABLE files ADD COLUMN rank REAL NOT NULL DEFAULT 0;
ALTER TABLE symbols ADD COLUMN rank REAL NOT NULL DEFAULT 0;
