-- Version 8: how many arguments a call passes (-1: not counted, or not a call), so that a call
-- binds to the overload of its method that takes that many (Java, C#, Kotlin, C++).
ALTER TABLE refs ADD COLUMN arity INTEGER NOT NULL DEFAULT -1;
