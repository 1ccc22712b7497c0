-- Version 8: how many arguments a call passes (-1: not counted, or not a call), and what can be
-- told of their types from the code alone (Java; tab-separated: `String`, `int`, `=buffer`, `?`),
-- so that a call binds to the overload of its method that takes them (Java, C#, Kotlin, Scala and
-- C++ count arguments).
ALTER TABLE refs ADD COLUMN arity INTEGER NOT NULL DEFAULT -1;
ALTER TABLE refs ADD COLUMN arguments TEXT NOT NULL DEFAULT '';
