"""What binding must know of each language, as data: receiver names, builtins, primitive types.

A language without a row binds bare names only by the language-agnostic steps of the ladder.
"""

from __future__ import annotations

import builtins
import collections
import datetime
import io
import pathlib
import re
import threading
from dataclasses import dataclass, field

__all__ = ["GraphSpec", "GRAPH_SPECS", "spec_for"]


@dataclass(frozen=True)
class GraphSpec:
    self_names: frozenset[str]  # receivers that mean "this object"
    builtins: frozenset[str]  # names that are never the project's, unless it defines them
    # Types whose members are never guessed: `x: str` then `x.find()` is str.find, not ours.
    primitive_types: frozenset[str]  # "literal": assigned a literal value
    # how imports name files: "python" | "ecmascript" | "go" | "java" | "rust" | "csharp" | "ruby" | "php" | "c" |
    # "swift" | "shell" | ""
    module_system: str
    super_receiver: str = ""  # the receiver that means "the same object, as its base class"
    # Method names of builtin and common library types: a receiver of unknown type calling one
    # of these is never bound to the project's only method of that name (`x.items()`).
    common_methods: frozenset[str] = frozenset()
    # Builtins whose call gives a builtin value (`str(x).strip()`), unlike `type(x)` or `next(it)`.
    builtin_constructors: frozenset[str] = frozenset()
    # Generic containers: iterating or subscripting `List[Foo]` gives a Foo; a `Dict[K, V]` gives
    # K when iterated and V when subscripted.
    sequence_types: frozenset[str] = frozenset()
    mapping_types: frozenset[str] = frozenset()
    cast_functions: frozenset[str] = frozenset()  # `cast(Foo, x)` is a Foo, when `cast` is not the project's
    class_self_names: frozenset[str] = frozenset()  # self names that mean the class itself (`cls`), not an instance
    # Methods of a typed sequence that give one of its elements (`list.get(0)`, `opt.unwrap()`), and
    # ones that give an iterator over the same elements (`v.iter()`).
    element_methods: frozenset[str] = frozenset()
    iter_methods: frozenset[str] = frozenset()
    # A method sees its class's members, inherited ones too, by their bare names (Java's implicit `this`).
    members_in_scope: bool = False
    # Code in a class sees the members of the classes around it too (Java's inner classes); Ruby's
    # lexical scope holds constants only (upper case): a bare method name is self's.
    lexical_methods: bool = True
    # Fields and methods may share a name: `x.items()` calls the method, `x.items.f()` reads the field.
    separate_namespaces: bool = False
    # Whether code written in a class body sees the class's members by their bare names; a Rust
    # impl block's does not (`Self::new`, `self.len()`).
    class_scope: bool = True
    # A name that nothing in scope declares may still be guessed from a definition of that name in
    # the directory or the project; Java reaches nothing that is not declared or imported.
    guess_by_name: bool = True
    # Whether a base's member hides one of a later base (Python's MRO, a Java superclass over an
    # interface's default); a Rust type's traits cannot hide each other's methods.
    ordered_bases: bool = True
    # A namespace's types are seen by bare name from every file that declares the namespace or one
    # inside it (C#), not only from the file that writes them.
    open_namespaces: bool = False
    # A class may be written in parts (C# `partial class`): its bases are those every part names.
    partial_classes: bool = False
    # An attribute `[Foo]` also means the class `Foo` + this suffix (C#: `FooAttribute`).
    attribute_suffix: str = ""
    # A method a class does not define may be an extension method written for it elsewhere
    # (C#: `static X F(this Foo f)`, recorded as an `extension` hint of F).
    extension_methods: bool = False
    # A written type names a type, never a field or method of that name: in C#'s
    # `Color Color { get; }` a `Color` elsewhere in the class is still the type.
    types_apart: bool = False
    # A written type may share its name with a value of the same file (TypeScript's `interface
    # Clock` and `const Clock: Tag<Clock>`): in a type, the name means the class or interface.
    type_namesakes: bool = False
    # A class may be written with its package and no import (`java.util.Objects.hash(x)`): a dotted
    # name whose head means nothing is the project's class of that qualified name.
    full_type_names: bool = False
    # A method may be defined outside its class's body and file (C++ `void Foo::bar() {}`): its
    # class is the class of that qualified name, wherever it is.
    out_of_line_methods: bool = False
    # Namespaces are reached by qualified names (C++ `ns::f`, `a::b::Foo`): a written `ns` means the
    # namespace the project's definitions declare, and `ns::f` its member from any file.
    qualified_namespaces: bool = False
    # An extension function's receiver is its `this`: its members are in scope by bare name (Kotlin's
    # `fun Order.label() = total()`), unlike a C# extension method's `this` parameter.
    extension_this: bool = False
    # Methods every object has that a class does not define itself: the library's unless the class
    # (or a base) defines one (Kotlin's scope functions `let`, `apply`, `use`).
    universal_methods: frozenset[str] = frozenset()
    # Library functions whose type arguments are the element types of the container they build:
    # Kotlin's `listOf<Order>()` (read `listOf[Order]()`) is a `List[Order]`.
    generic_factories: dict[str, str] = field(default_factory=dict)
    # A name nothing in the project defines and no builtin names is outside the project (a shell
    # command: a program on the PATH), not unbound.
    unknown_external: bool = False
    # A local is bound from its declaration on: the name called or written as a type on the line that
    # declares it is the outer one (Go's `minType := minType(v)`, `var spec *spec`; Rust's `let x = x();`).
    declared_before_use: bool = False


_PYTHON_PRIMITIVES = frozenset(
    """
    str int float bool bytes bytearray complex list dict set frozenset tuple object type None
    List Dict Set FrozenSet Tuple Sequence Mapping MutableMapping Iterable Iterator Any Callable
    Optional Union literal MutableSequence Collection AbstractSet MutableSet Deque deque Generator AsyncIterator
    AsyncIterable AsyncGenerator Reversible OrderedDict DefaultDict defaultdict
    """.split()
)

_PYTHON_COMMON_TYPES: tuple[type, ...] = (
    str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex, memoryview, re.Pattern,
    re.Match, io.TextIOWrapper, io.BytesIO, io.StringIO, threading.Thread, threading.Event, type(threading.Lock()),
    collections.OrderedDict, collections.deque, collections.Counter, pathlib.Path, datetime.datetime,
)
_PYTHON_COMMON_METHODS = frozenset(
    name for kind in _PYTHON_COMMON_TYPES for name in dir(kind) if not name.startswith("_")
)
_PYTHON_BUILTIN_CONSTRUCTORS = frozenset(
    """
    str bytes bytearray list dict set frozenset tuple int float complex bool len repr ascii format sorted
    enumerate zip map filter range reversed open hex oct bin chr ord abs round hash id isinstance issubclass
    callable hasattr divmod pow sum any all memoryview
    """.split()
)

_ECMASCRIPT_BUILTINS = frozenset(
    """
    console Object Array Promise JSON Math Number String Boolean Symbol BigInt Date RegExp Error TypeError
    RangeError SyntaxError ReferenceError Map Set WeakMap WeakSet WeakRef Proxy Reflect Intl ArrayBuffer
    DataView Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array
    globalThis window document navigator location history localStorage sessionStorage self fetch Request
    Response Headers URL URLSearchParams AbortController Event EventTarget CustomEvent Blob File FormData
    TextEncoder TextDecoder setTimeout clearTimeout setInterval clearInterval queueMicrotask structuredClone
    requestAnimationFrame parseInt parseFloat isNaN isFinite encodeURIComponent decodeURIComponent encodeURI
    decodeURI require module exports process Buffer __dirname __filename global undefined NaN Infinity
    eval alert arguments
    """.split()
)
_ECMASCRIPT_SEQUENCES = frozenset(
    "Array ReadonlyArray Set ReadonlySet Iterable Iterator AsyncIterable Generator".split()
)
_ECMASCRIPT_MAPPINGS = frozenset("Map ReadonlyMap Record WeakMap".split())
_ECMASCRIPT_PRIMITIVES = frozenset(
    """
    string number boolean bigint symbol any unknown never void object null undefined literal String Number
    Boolean Object Function Promise RegExp Date Error Partial Required Readonly Pick Omit
    """.split()
) | _ECMASCRIPT_SEQUENCES | _ECMASCRIPT_MAPPINGS
# Methods of arrays, strings, maps, sets, promises and objects: never guessed on an unknown receiver.
_ECMASCRIPT_COMMON_METHODS = frozenset(
    """
    at concat copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach
    includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice
    toString unshift values charAt charCodeAt codePointAt endsWith localeCompare match matchAll normalize padEnd
    padStart repeat replace replaceAll search split startsWith substring toLowerCase toUpperCase trim trimEnd
    trimStart clear delete get has set add then catch finally toFixed toISOString getTime valueOf hasOwnProperty
    bind call apply test exec emit on off once addEventListener removeEventListener dispatchEvent json text
    """.split()
)
_ECMASCRIPT = GraphSpec(
    self_names=frozenset({"this"}),
    builtins=_ECMASCRIPT_BUILTINS,
    primitive_types=_ECMASCRIPT_PRIMITIVES,
    module_system="ecmascript",
    super_receiver="super",
    common_methods=_ECMASCRIPT_COMMON_METHODS,
    builtin_constructors=frozenset("String Number Boolean Array Object Symbol BigInt parseInt parseFloat".split()),
    sequence_types=_ECMASCRIPT_SEQUENCES,
    mapping_types=_ECMASCRIPT_MAPPINGS,
    # `xs.shift()!.complete()`: an element; `xs.slice(1)`: the same elements
    element_methods=frozenset("shift pop at find findLast".split()),
    type_namesakes=True,
    iter_methods=frozenset("slice filter concat reverse sort splice toReversed toSorted values".split()),
)

_GO_BUILTINS = frozenset(
    """
    append cap clear close complex copy delete imag len make max min new panic print println real recover
    nil true false iota
    """.split()
)
_GO_PRIMITIVES = frozenset(
    """
    bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8
    uint16 uint32 uint64 uintptr any comparable literal
    """.split()
)
# Methods of the standard library's everyday types (error, io, sync, fmt.Stringer, context, sort):
# an unknown receiver calling one is not guessed to be the project's only method of that name.
_GO_COMMON_METHODS = frozenset(
    """
    Error String Close Read Write ReadFrom WriteTo Seek Flush Lock Unlock RLock RUnlock Wait Done Add Err
    Value Deadline Len Less Swap Unwrap Is As Format Scan Next Bytes Text Reset Sum Load Store Delete
    Range Do Get Set Del Header
    """.split()
)

GRAPH_SPECS: dict[str, GraphSpec] = {
    "python": GraphSpec(
        self_names=frozenset({"self", "cls"}),
        builtins=frozenset(dir(builtins)),
        primitive_types=_PYTHON_PRIMITIVES,
        module_system="python",
        super_receiver="super()",
        common_methods=_PYTHON_COMMON_METHODS,
        builtin_constructors=_PYTHON_BUILTIN_CONSTRUCTORS,
        sequence_types=frozenset(
            """
            List list Sequence MutableSequence Iterable Iterator Collection Set set FrozenSet frozenset
            AbstractSet MutableSet Deque deque Generator AsyncIterator AsyncIterable AsyncGenerator Reversible
            """.split()
        ),
        mapping_types=frozenset("Dict dict Mapping MutableMapping OrderedDict DefaultDict defaultdict".split()),
        cast_functions=frozenset({"cast"}),
        class_self_names=frozenset({"cls"}),
    ),
    "javascript": _ECMASCRIPT,
    "typescript": _ECMASCRIPT,
    "tsx": _ECMASCRIPT,
    "go": GraphSpec(
        self_names=frozenset(),  # a receiver is a named parameter, typed by its own hint
        builtins=_GO_BUILTINS | _GO_PRIMITIVES,
        # slices, arrays and channels, and maps, as graph/resolve.py's `_go_type` names them
        primitive_types=_GO_PRIMITIVES | {"[]", "map"},
        sequence_types=frozenset({"[]"}),
        mapping_types=frozenset({"map"}),
        module_system="go",
        common_methods=_GO_COMMON_METHODS,
        builtin_constructors=_GO_BUILTINS | _GO_PRIMITIVES,
        declared_before_use=True,
    ),
}

_JAVA_LANG = frozenset(
    """
    Object String Integer Long Short Byte Character Boolean Double Float Number Void Math StrictMath System
    Thread ThreadLocal Runnable Runtime Process ProcessBuilder Class ClassLoader Enum Record Iterable
    Comparable CharSequence StringBuilder StringBuffer AutoCloseable Cloneable Appendable Readable
    Throwable Exception RuntimeException Error AssertionError IllegalArgumentException IllegalStateException
    NullPointerException UnsupportedOperationException IndexOutOfBoundsException ClassCastException
    ArrayIndexOutOfBoundsException StringIndexOutOfBoundsException ArithmeticException NumberFormatException
    InterruptedException CloneNotSupportedException SecurityException ReflectiveOperationException
    ClassNotFoundException NoSuchFieldException NoSuchMethodException IllegalAccessException
    InstantiationException OutOfMemoryError StackOverflowError LinkageError NoClassDefFoundError
    ExceptionInInitializerError Override Deprecated SuppressWarnings FunctionalInterface SafeVarargs
    getClass hashCode equals toString clone finalize wait notify notifyAll
    """.split()
)  # and the methods every class inherits from Object, called by their bare names
# Types whose members are the JDK's (strings, boxed primitives, collections, streams, optionals).
_JAVA_SEQUENCES = frozenset(
    """
    Array List ArrayList LinkedList Collection Set HashSet LinkedHashSet TreeSet SortedSet NavigableSet
    Iterable Iterator ListIterator Optional Stream Queue Deque ArrayDeque PriorityQueue Vector Stack
    CopyOnWriteArrayList BlockingQueue Enumeration Spliterator
    """.split()
)
_JAVA_MAPPINGS = frozenset(
    "Map HashMap LinkedHashMap TreeMap SortedMap NavigableMap ConcurrentHashMap ConcurrentMap WeakHashMap "
    "IdentityHashMap EnumMap Hashtable".split()
)
_JAVA_PRIMITIVES = frozenset(
    """
    int long short byte char boolean double float void literal Object String Integer Long Short Byte
    Character Boolean Double Float Number CharSequence StringBuilder StringBuffer Class Entry Function
    BiFunction Supplier Consumer BiConsumer Predicate BiPredicate Runnable Callable Comparator
    """.split()
) | _JAVA_SEQUENCES | _JAVA_MAPPINGS
# Methods of Object, strings, collections, streams and optionals: never guessed on an unknown receiver.
_JAVA_COMMON_METHODS = frozenset(
    """
    equals hashCode toString getClass clone compareTo length charAt substring indexOf lastIndexOf isEmpty
    isBlank trim strip split startsWith endsWith contains replace toLowerCase toUpperCase format append
    get set add addAll put putAll remove removeAll clear size stream forEach iterator hasNext next map
    filter collect reduce orElse orElseThrow orElseGet isPresent ifPresent of ofNullable empty apply accept
    test run call close read write flush getName getValue getKey values keySet entrySet containsKey
    toArray asList sort min max count findFirst findAny anyMatch allMatch noneMatch flatMap sorted distinct
    limit skip valueOf name ordinal getMessage getCause printStackTrace wait notify notifyAll
    intValue longValue doubleValue booleanValue start join interrupt lock unlock
    """.split()
)
_RUST_MACROS = frozenset(
    """
    println print eprintln eprint format format_args write writeln panic assert assert_eq assert_ne
    debug_assert debug_assert_eq debug_assert_ne vec todo unimplemented unreachable matches cfg concat
    stringify include include_str include_bytes env option_env line file column module_path dbg
    compile_error thread_local try macro_rules
    """.split()
)
_RUST_SEQUENCES = frozenset("Vec VecDeque LinkedList BinaryHeap HashSet BTreeSet Option Result".split())
_RUST_MAPPINGS = frozenset("HashMap BTreeMap IndexMap".split())
_RUST_PRIMITIVES = frozenset(
    """
    u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 bool char str String literal Box Rc Arc Cow RefCell Cell
    Mutex RwLock PhantomData Duration Instant Path PathBuf OsString OsStr Ordering Formatter
    """.split()
) | _RUST_SEQUENCES | _RUST_MAPPINGS
_RUST_BUILTINS = (
    frozenset(
        """
        Some None Ok Err Box Vec String Option Result Default Clone Copy Send Sync Sized Unpin Drop Fn FnMut
        FnOnce ToString ToOwned Into From TryInto TryFrom AsRef AsMut Iterator IntoIterator DoubleEndedIterator
        ExactSizeIterator Extend Eq PartialEq Ord PartialOrd Hash Debug Display drop std core alloc test bench
        derive
        """.split()
    )
    | _RUST_MACROS
    | _RUST_PRIMITIVES
)
# Methods of std's everyday types (Option, Result, iterators, collections, strings, smart pointers,
# locks) and of its common traits: never guessed on a receiver of unknown type.
_RUST_COMMON_METHODS = frozenset(
    """
    clone clone_from iter iter_mut into_iter map map_err and_then or_else ok err ok_or ok_or_else unwrap
    expect unwrap_or unwrap_or_else unwrap_or_default is_some is_none is_ok is_err as_ref as_mut as_deref
    take replace len is_empty push push_str pop get get_mut insert remove contains contains_key entry
    or_insert or_insert_with extend drain retain sort sort_by sort_by_key dedup truncate clear reserve
    with_capacity capacity split split_at join trim starts_with ends_with chars bytes as_bytes as_str
    to_string to_owned to_vec into from try_from try_into fmt eq ne cmp partial_cmp hash next collect
    filter filter_map fold for_each any all find position count sum min max zip enumerate rev skip
    chain flat_map take_while skip_while peekable last nth step_by copied cloned first lock read write
    try_lock borrow borrow_mut deref deref_mut drop default new poll send recv call as_ptr load store
    swap compare_exchange fetch_add fetch_sub wake wake_by_ref spawn finish build
    """.split()
)

GRAPH_SPECS["java"] = GraphSpec(
    self_names=frozenset({"this"}),
    builtins=_JAVA_LANG,
    primitive_types=_JAVA_PRIMITIVES,
    module_system="java",
    full_type_names=True,
    super_receiver="super",
    common_methods=_JAVA_COMMON_METHODS,
    builtin_constructors=_JAVA_LANG | _JAVA_PRIMITIVES,
    sequence_types=_JAVA_SEQUENCES,
    mapping_types=_JAVA_MAPPINGS,
    element_methods=frozenset(
        "get next previous getFirst getLast peek peekFirst peekLast poll pollFirst pollLast pop element "
        "orElseThrow orElse orElseGet nextElement".split()
    ),
    iter_methods=frozenset({"iterator", "listIterator", "descendingIterator"}),
    members_in_scope=True,
    separate_namespaces=True,
    guess_by_name=False,
)
GRAPH_SPECS["rust"] = GraphSpec(
    self_names=frozenset({"self", "Self"}),
    builtins=_RUST_BUILTINS,
    primitive_types=_RUST_PRIMITIVES,
    module_system="rust",
    declared_before_use=True,  # `let level_range = level_range(self.level);`
    common_methods=_RUST_COMMON_METHODS,
    builtin_constructors=_RUST_BUILTINS,
    sequence_types=_RUST_SEQUENCES,
    mapping_types=_RUST_MAPPINGS,
    class_self_names=frozenset({"Self"}),
    element_methods=frozenset("unwrap expect unwrap_or_default unwrap_unchecked".split()),
    iter_methods=frozenset("iter iter_mut into_iter".split()),
    separate_namespaces=True,
    class_scope=False,
    ordered_bases=False,
)

# C#: the types of the `System` namespace (and the roots of the framework's namespaces, so that
# `System.IO.File.ReadAllText` is the framework's), seen without an import in most files.
_CSHARP_SYSTEM = frozenset(
    """
    System Microsoft Windows Object String Int16 Int32 Int64 UInt16 UInt32 UInt64 Byte SByte Char Boolean
    Double Single Decimal IntPtr UIntPtr Void Math MathF Console Convert Environment GC Guid DateTime
    DateTimeOffset TimeSpan Type Array Attribute Enum Delegate MulticastDelegate Action Func Predicate
    Comparison Converter EventHandler EventArgs Exception SystemException ArgumentException
    ArgumentNullException ArgumentOutOfRangeException InvalidOperationException NotSupportedException
    NotImplementedException NullReferenceException IndexOutOfRangeException InvalidCastException
    FormatException OverflowException ObjectDisposedException KeyNotFoundException TimeoutException
    OperationCanceledException AggregateException OutOfMemoryException StackOverflowException
    DivideByZeroException ApplicationException IDisposable IAsyncDisposable ICloneable IComparable
    IEquatable IFormattable IConvertible Nullable Lazy Tuple ValueTuple Span ReadOnlySpan Memory
    ReadOnlyMemory Index Range Random Uri Version BitConverter Buffer StringComparison StringComparer
    AttributeUsage AttributeTargets Obsolete Serializable Flags NonSerialized CLSCompliant ParamArray
    ThreadStatic STAThread MTAThread List Dictionary HashSet Queue Stack LinkedList SortedDictionary
    SortedList SortedSet IEnumerable IEnumerator ICollection IList IDictionary IReadOnlyList
    IReadOnlyCollection IReadOnlyDictionary ISet KeyValuePair Task ValueTask CancellationToken
    StringBuilder Encoding Thread Interlocked Monitor Stream TextWriter TextReader File Path Directory
    Debug Trace Activator Marshal nameof dynamic
    """.split()
)
_CSHARP_SEQUENCES = frozenset(
    """
    Array List IList IReadOnlyList ICollection IReadOnlyCollection IEnumerable IEnumerator HashSet ISet
    SortedSet Queue Stack LinkedList Span ReadOnlySpan Memory ReadOnlyMemory ImmutableArray ImmutableList
    ConcurrentBag ConcurrentQueue ConcurrentStack BlockingCollection Collection ReadOnlyCollection
    ObservableCollection IQueryable IOrderedEnumerable Nullable Task ValueTask
    """.split()
)  # (a task holds the value awaiting it gives: parse/hooks/csharp.py reads `await x` as its result)
_CSHARP_MAPPINGS = frozenset(
    "Dictionary IDictionary IReadOnlyDictionary SortedDictionary SortedList ConcurrentDictionary "
    "ImmutableDictionary Hashtable".split()
)
_CSHARP_PRIMITIVES = frozenset(
    """
    string int long short byte sbyte uint ulong ushort char bool double float decimal object void dynamic
    nint nuint literal String Object Int16 Int32 Int64 UInt16 UInt32 UInt64 Byte SByte Char Boolean Double
    Single Decimal IntPtr UIntPtr Guid DateTime DateTimeOffset TimeSpan Type Action Func Predicate
    EventHandler StringBuilder KeyValuePair Tuple ValueTuple Lazy CancellationToken Exception
    """.split()
) | _CSHARP_SEQUENCES | _CSHARP_MAPPINGS
# Methods of object, strings, collections, LINQ, tasks and streams: never guessed on an unknown receiver.
_CSHARP_COMMON_METHODS = frozenset(
    """
    ToString Equals GetHashCode GetType CompareTo Dispose DisposeAsync Add AddRange Remove RemoveAt
    RemoveAll Clear Contains ContainsKey ContainsValue TryGetValue TryAdd TryRemove GetValueOrDefault
    Insert IndexOf LastIndexOf CopyTo ToArray ToList ToDictionary ToHashSet Count Any All Select
    SelectMany Where First FirstOrDefault Last LastOrDefault Single SingleOrDefault OrderBy
    OrderByDescending ThenBy GroupBy Sum Min Max Average Aggregate Skip Take Distinct Concat Zip Reverse
    Cast OfType AsEnumerable Substring StartsWith EndsWith Trim TrimStart TrimEnd Split Replace Format
    Join Append AppendLine AppendFormat Write WriteLine Read ReadLine ReadToEnd Close Flush Invoke
    BeginInvoke EndInvoke DynamicInvoke GetEnumerator MoveNext Reset Wait WaitAsync Start Stop Run
    ConfigureAwait ContinueWith GetAwaiter GetResult Parse TryParse Push Pop Peek Enqueue Dequeue
    TryDequeue TryPeek Sort Clone Find FindAll FindIndex Exists ForEach Get Set SetValue GetValue
    Invoke Enter Exit Lock Unlock Cancel ThrowIfCancellationRequested IsNullOrEmpty IsNullOrWhiteSpace
    ToUpper ToLower ToUpperInvariant ToLowerInvariant PadLeft PadRight Create Of
    """.split()
)

GRAPH_SPECS["csharp"] = GraphSpec(
    self_names=frozenset({"this"}),
    builtins=_CSHARP_SYSTEM,
    primitive_types=_CSHARP_PRIMITIVES,
    module_system="csharp",
    full_type_names=True,
    super_receiver="base",
    common_methods=_CSHARP_COMMON_METHODS,
    builtin_constructors=_CSHARP_SYSTEM | _CSHARP_PRIMITIVES,
    sequence_types=_CSHARP_SEQUENCES,
    mapping_types=_CSHARP_MAPPINGS,
    element_methods=frozenset(
        "First FirstOrDefault Last LastOrDefault Single SingleOrDefault ElementAt ElementAtOrDefault Find "
        "FindLast Dequeue Peek Pop Min Max GetResult GetValueOrDefault".split()
    ),
    iter_methods=frozenset(
        "Where OrderBy OrderByDescending ThenBy ThenByDescending Skip Take SkipWhile TakeWhile Reverse Distinct "
        "ToList ToArray ToHashSet AsEnumerable AsReadOnly FindAll GetRange Concat Union Intersect Except "
        "ToImmutableList ToImmutableArray GetAwaiter ConfigureAwait".split()
    ),
    members_in_scope=True,
    guess_by_name=False,
    open_namespaces=True,
    partial_classes=True,
    attribute_suffix="Attribute",
    extension_methods=True,
    types_apart=True,
)

# Ruby: Kernel's and Module's methods (called without a receiver everywhere), the core classes and
# modules, and the global constants.
_RUBY_BUILTINS = frozenset(
    """
    puts print p pp require require_relative load raise fail loop lambda proc format sprintf printf gets
    sleep rand srand exit exit! abort at_exit catch throw binding block_given? caller caller_locations eval
    instance_eval instance_exec class_eval module_eval instance_variable_get instance_variable_set
    instance_variables define_method define_singleton_method attr_accessor attr_reader attr_writer include
    extend prepend private protected public module_function private_constant public_constant
    private_class_method public_class_method alias_method remove_method undef_method autoload freeze
    frozen? dup clone send __send__ public_send respond_to? is_a? kind_of? instance_of? nil? tap then
    yield_self object_id hash inspect to_s class method methods singleton_class new allocate superclass
    ancestors name const_get const_set const_defined? warn open system spawn trap select Integer Float
    String Array Hash Rational Complex __method__ __dir__ __FILE__ __LINE__ nil true false self
    Object BasicObject Kernel Module Class Comparable Enumerable Enumerator String Symbol Integer Float
    Numeric Array Hash Set Range Proc Method UnboundMethod IO File Dir Time Struct Exception StandardError
    RuntimeError ArgumentError TypeError NameError NoMethodError KeyError IndexError StopIteration
    NotImplementedError IOError EOFError SystemExit Interrupt SignalException ScriptError LoadError
    FrozenError RangeError FloatDomainError ZeroDivisionError RegexpError ThreadError FiberError
    SecurityError SystemCallError LocalJumpError EncodingError Errno ENV ARGV ARGF STDOUT STDERR STDIN
    DATA Math Process Signal GC ObjectSpace Marshal Thread Mutex Queue SizedQueue ConditionVariable Fiber
    Encoding Regexp MatchData NilClass TrueClass FalseClass Random Data Ractor Warning RUBY_VERSION
    RUBY_PLATFORM RUBY_ENGINE RUBY_PATCHLEVEL RUBY_RELEASE_DATE
    JSON YAML Psych Pathname FileUtils Logger OpenStruct StringIO Tempfile URI Net Date DateTime Digest Base64
    SecureRandom Benchmark Timeout Shellwords ERB CSV Open3 Etc Socket Zlib OptionParser Forwardable
    Singleton Observable Find Readline Ripper Coverage StringScanner OpenSSL WEBrick TCPServer UNIXServer
    TCPSocket UNIXSocket IPAddr SyntaxError using refine ruby2_keywords deprecate_constant def_delegators
    def_delegator
    describe context it specify let let! subject before after around expect allow receive double
    instance_double shared_examples include_examples it_behaves_like assert assert_equal assert_nil
    refute refute_equal assert_raises
    """.split()
)  # and the standard library's top-level names, RSpec's and Minitest's
_RUBY_PRIMITIVES = frozenset(
    "String Symbol Integer Float Numeric Array Hash Set Range Proc Time NilClass TrueClass FalseClass "
    "Regexp MatchData literal".split()
)
# Methods of Object, String, Symbol, Integer, Array, Hash, Enumerable, IO and Proc: never guessed on a
# receiver of unknown type.
_RUBY_COMMON_METHODS = frozenset(
    """
    each each_with_index each_with_object each_pair each_key each_value each_slice each_cons each_char
    each_line map map! flat_map collect select select! filter filter_map reject reject! find detect find_index
    find_all inject reduce sum count min max min_by max_by minmax sort sort! sort_by sort_by! group_by
    partition chunk_while slice_when tally zip take take_while drop drop_while first last push pop shift
    unshift append prepend insert concat << include? member? empty? any? all? none? one? size length keys
    values key? has_key? value? has_value? fetch fetch_values dig store merge merge! update delete
    delete_if keep_if compact compact! flatten flatten! uniq uniq! reverse reverse! rotate sample shuffle
    join split strip strip! lstrip rstrip chomp chop chars bytes lines gsub gsub! sub sub! tr squeeze
    upcase downcase capitalize swapcase start_with? end_with? match match? scan index rindex slice slice!
    center ljust rjust to_s to_str to_sym to_i to_f to_r to_a to_h to_proc to_json inspect dup clone
    freeze frozen? nil? is_a? kind_of? respond_to? send public_send tap then call yield_self hash eql?
    equal? object_id instance_variable_get instance_variable_set method methods class times upto downto
    step abs round floor ceil zero? positive? negative? even? odd? succ pred between? clamp read write
    puts print close open each_entry with_index with_object lazy force entries clear replace fill
    assoc transform_values transform_keys filter_map sum values_at invert min_by group_by format encode
    force_encoding unpack pack bytesize empty? length succ next
    """.split()
)

GRAPH_SPECS["ruby"] = GraphSpec(
    self_names=frozenset({"self"}),
    builtins=_RUBY_BUILTINS,
    primitive_types=_RUBY_PRIMITIVES,
    module_system="ruby",
    super_receiver="super",
    common_methods=_RUBY_COMMON_METHODS,
    builtin_constructors=frozenset("Integer Float String Array Hash Rational Complex format sprintf".split()),
    members_in_scope=True,  # `save` in a method is `self.save`, a method of the class or its ancestors
    lexical_methods=False,
    guess_by_name=False,  # every constant and top-level method is in the one global namespace
    open_namespaces=True,
    partial_classes=True,  # classes and modules are reopened across files
)

# PHP: the functions, classes and interfaces of the language and its bundled extensions that code calls
# most, seen from every namespace (an unqualified function falls back to the global one).
_PHP_BUILTINS = frozenset(
    """
    strlen strtolower strtoupper ucfirst lcfirst ucwords trim ltrim rtrim str_replace str_ireplace substr strpos
    stripos strrpos str_contains str_starts_with str_ends_with str_repeat str_pad str_split sprintf printf
    vsprintf number_format implode explode join nl2br htmlspecialchars html_entity_decode strip_tags addslashes
    stripslashes preg_match preg_match_all preg_replace preg_replace_callback preg_split preg_quote
    count sizeof array_map array_filter array_reduce array_keys array_values array_merge array_merge_recursive
    array_combine array_flip array_slice array_splice array_search array_key_exists array_key_first
    array_key_last array_unique array_reverse array_sum array_push array_pop array_shift array_unshift
    array_fill array_fill_keys array_column array_diff array_diff_key array_intersect array_intersect_key
    array_walk array_chunk array_pad array_replace array_is_list in_array range compact extract list sort
    rsort usort uasort uksort ksort krsort asort arsort iterator_to_array is_array is_string is_int is_integer
    is_float is_bool is_numeric is_null is_object is_callable is_iterable is_countable is_resource isset
    unset empty intval floatval boolval strval settype gettype get_class get_parent_class get_object_vars
    get_debug_type method_exists property_exists class_exists interface_exists function_exists defined
    define constant call_user_func call_user_func_array func_get_args func_num_args spl_object_hash
    spl_object_id spl_autoload_register json_encode json_decode serialize unserialize var_export var_dump
    print_r error_log trigger_error set_error_handler restore_error_handler set_exception_handler
    error_reporting ini_get ini_set getenv putenv time microtime hrtime date gmdate mktime strtotime
    date_default_timezone_get usleep sleep uniqid random_int random_bytes mt_rand rand md5 sha1 crc32 hash
    hash_hmac base64_encode base64_decode bin2hex hex2bin urlencode urldecode rawurlencode http_build_query
    parse_url parse_str file_get_contents file_put_contents fopen fclose fwrite fread fgets feof fflush
    file_exists is_file is_dir is_readable is_writable mkdir rmdir unlink rename copy touch realpath dirname
    basename pathinfo glob scandir tempnam sys_get_temp_dir stream_get_contents ob_start ob_get_clean
    max min abs floor ceil round sqrt pow intdiv fmod array_flip mb_strlen mb_substr mb_strtolower
    mb_strtoupper mb_strpos mb_str_pad iconv ctype_digit ctype_alpha ctype_space filter_var
    debug_backtrace assert exit die echo print header headers_sent function_exists is_a is_subclass_of
    self static parent true false null
    Exception ErrorException Error TypeError ValueError ArgumentCountError ArithmeticError DivisionByZeroError
    RuntimeException LogicException InvalidArgumentException DomainException LengthException
    OutOfRangeException OutOfBoundsException RangeException OverflowException UnderflowException
    UnexpectedValueException BadFunctionCallException BadMethodCallException JsonException Throwable
    Traversable Iterator IteratorAggregate ArrayAccess Countable Stringable JsonSerializable Serializable
    ArrayIterator ArrayObject Generator Closure stdClass DateTime DateTimeImmutable DateTimeInterface
    DateTimeZone DateInterval DatePeriod SplObjectStorage SplQueue SplStack SplFixedArray SplFileInfo
    SplFileObject SplTempFileObject WeakMap WeakReference Reflection ReflectionClass ReflectionMethod
    ReflectionProperty ReflectionFunction ReflectionNamedType ReflectionObject PDO PDOStatement PDOException
    UnitEnum BackedEnum Attribute Override Deprecated ReturnTypeWillChange SensitiveParameter AllowDynamicProperties
    """.split()
)
_PHP_PRIMITIVES = frozenset(
    "int float string bool array mixed void null callable iterable object never false true literal "
    "Closure Generator stdClass Traversable Iterator IteratorAggregate ArrayAccess ArrayIterator ArrayObject "
    "DateTime DateTimeImmutable DateTimeInterface Throwable Exception".split()
)
# Methods of exceptions, iterators, array objects, dates, closures and generators: never guessed on an
# unknown receiver.
_PHP_COMMON_METHODS = frozenset(
    """
    getMessage getCode getPrevious getTrace getTraceAsString getFile getLine current key next rewind valid
    count offsetGet offsetSet offsetExists offsetUnset getIterator jsonSerialize format modify getTimestamp
    setTimezone getTimezone add sub diff setDate setTime call bind bindTo send getReturn throw __toString
    __invoke __get __set __isset __unset __call __callStatic getArrayCopy append toArray get set has
    remove clear all isEmpty first last keys values map filter each push pop
    """.split()
)

GRAPH_SPECS["php"] = GraphSpec(
    self_names=frozenset({"this", "self", "static"}),
    builtins=_PHP_BUILTINS,
    primitive_types=_PHP_PRIMITIVES,
    module_system="php",
    super_receiver="parent",
    common_methods=_PHP_COMMON_METHODS,
    builtin_constructors=frozenset("intval floatval strval boolval sprintf implode json_encode".split()),
    class_self_names=frozenset({"self", "static"}),  # `self::make()`: the class itself
    guess_by_name=False,  # a name is declared, imported with `use`, or in the file's namespace
    separate_namespaces=True,  # `$x->items` is a property, `$x->items()` a method
)

# C: the standard library's functions and macros, seen through system headers the project does not
# index (so `printf` is libc's, not a guess), and its types.
_C_PRIMITIVES = frozenset(
    """
    void char short int long float double signed unsigned bool _Bool size_t ssize_t ptrdiff_t intptr_t
    uintptr_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t off_t pid_t uid_t gid_t
    mode_t time_t clock_t wchar_t va_list FILE DIR jmp_buf sigset_t pthread_t pthread_mutex_t
    pthread_cond_t pthread_once_t pthread_key_t pthread_attr_t socklen_t sig_atomic_t literal auto
    """.split()
)
_C_BUILTINS = frozenset(
    """
    printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf scanf fscanf sscanf puts fputs
    fputc putc putchar fgets fgetc getc getchar ungetc fopen fclose fflush fread fwrite fseek ftell rewind
    feof ferror clearerr perror remove rename tmpfile fileno fdopen popen pclose setvbuf malloc calloc
    realloc free aligned_alloc abort exit _exit atexit getenv setenv unsetenv system atoi atol atoll atof
    strtol strtoul strtoll strtoull strtod strtof qsort bsearch abs labs rand srand memcpy memmove memset
    memcmp memchr strlen strnlen strcpy strncpy strcat strncat strcmp strncmp strchr strrchr strstr
    strtok strtok_r strdup strndup strerror strerror_r strspn strcspn strpbrk strcasecmp strncasecmp
    isalpha isdigit isalnum isspace isupper islower isxdigit isprint ispunct toupper tolower assert
    va_start va_end va_arg va_copy offsetof sizeof NULL EOF errno stdin stdout stderr true false
    open close read write lseek pipe dup dup2 fork execv execvp waitpid kill signal sigaction raise
    getpid getppid sleep usleep nanosleep time clock gettimeofday clock_gettime localtime gmtime mktime
    strftime select poll socket bind listen accept connect send recv sendto recvfrom setsockopt
    getsockopt shutdown getaddrinfo freeaddrinfo ioctl fcntl mmap munmap stat fstat lstat unlink mkdir
    rmdir opendir readdir closedir chdir getcwd pthread_create pthread_join pthread_mutex_lock
    pthread_mutex_unlock pthread_cond_wait pthread_cond_signal pthread_self setjmp longjmp
    __attribute__ __builtin_expect __typeof__ typeof static_assert _Static_assert
    """.split()
)
# C++: the standard library is `std::`, read as a builtin; its containers give their elements.
_CPP_SEQUENCES = frozenset(
    "vector list deque array set multiset unordered_set forward_list span initializer_list queue stack "
    "priority_queue optional unique_ptr shared_ptr weak_ptr".split()
)
_CPP_MAPPINGS = frozenset("map multimap unordered_map unordered_multimap".split())
_CPP_PRIMITIVES = _C_PRIMITIVES | _CPP_SEQUENCES | _CPP_MAPPINGS | frozenset(
    "string string_view wstring pair tuple function nullptr_t byte size_type iterator const_iterator".split()
)
_CPP_BUILTINS = _C_BUILTINS | _CPP_PRIMITIVES | frozenset(
    """
    std nullptr this static_cast dynamic_cast reinterpret_cast const_cast make_unique make_shared
    make_pair make_tuple move forward swap min max sort find begin end size cout cerr endl to_string
    decltype noexcept alignof typeid
    """.split()
)
# Methods of the standard containers, strings and smart pointers: never guessed on an unknown receiver.
_CPP_COMMON_METHODS = frozenset(
    """
    size empty push_back emplace_back pop_back push_front emplace_front pop_front front back at data begin
    end cbegin cend rbegin rend insert emplace erase clear find count contains reserve resize capacity
    shrink_to_fit swap get reset release lock unlock c_str substr append compare length first second
    top push pop value value_or has_value load store exchange wait notify_one notify_all join detach
    str lower_bound upper_bound equal_range assign fill
    """.split()
)
GRAPH_SPECS["c"] = GraphSpec(
    self_names=frozenset(),
    builtins=_C_BUILTINS | _C_PRIMITIVES,
    primitive_types=_C_PRIMITIVES,
    builtin_constructors=_C_BUILTINS | _C_PRIMITIVES,
    module_system="c",
    guess_by_name=False,  # the global step (graph/cfamily.py) is C's guess, with `static` and headers known
    types_apart=True,  # a typedef stands for its type: `uv_loop_t *l` is an instance of uv_loop_s
)
GRAPH_SPECS["cpp"] = GraphSpec(
    self_names=frozenset({"this"}),
    builtins=_CPP_BUILTINS,
    primitive_types=_CPP_PRIMITIVES,
    common_methods=_CPP_COMMON_METHODS,
    builtin_constructors=_CPP_BUILTINS,
    sequence_types=_CPP_SEQUENCES,
    mapping_types=_CPP_MAPPINGS,
    element_methods=frozenset("front back at top value get".split()),
    iter_methods=frozenset("begin end cbegin cend rbegin rend".split()),
    members_in_scope=True,
    guess_by_name=False,
    open_namespaces=True,
    out_of_line_methods=True,
    qualified_namespaces=True,
    module_system="c",
    types_apart=True,
)

# Kotlin: what every file sees without an import (the default imports `kotlin.*`,
# `kotlin.collections.*`, `kotlin.text.*`, ... and `java.lang.*`), the JVM annotations included.
_KOTLIN_STDLIB = frozenset(
    """
    Any Unit Nothing String Int Long Short Byte Char Boolean Double Float Number CharSequence Comparable
    Array IntArray LongArray ByteArray CharArray BooleanArray DoubleArray FloatArray ShortArray List
    MutableList ArrayList Collection MutableCollection Iterable MutableIterable Set MutableSet HashSet
    LinkedHashSet Map MutableMap HashMap LinkedHashMap Sequence Iterator ListIterator Pair Triple Result
    Lazy Regex StringBuilder Enum Annotation Throwable Exception RuntimeException Error
    IllegalStateException IllegalArgumentException UnsupportedOperationException IndexOutOfBoundsException
    NoSuchElementException NumberFormatException ArithmeticException ClassCastException
    NullPointerException ConcurrentModificationException AssertionError KotlinNullPointerException
    Deprecated ReplaceWith Suppress JvmStatic JvmField JvmOverloads JvmName JvmSuppressWildcards
    JvmWildcard JvmInline JvmRecord Throws Synchronized Volatile Transient Strictfp PublishedApi
    OptIn RequiresOptIn DslMarker Target Retention Repeatable MustBeDocumented
    println print readLine readln listOf listOfNotNull mutableListOf arrayListOf emptyList setOf
    mutableSetOf hashSetOf linkedSetOf sortedSetOf emptySet mapOf mutableMapOf hashMapOf linkedMapOf
    sortedMapOf emptyMap sequenceOf emptySequence generateSequence sequence iterator arrayOf
    arrayOfNulls emptyArray intArrayOf longArrayOf byteArrayOf charArrayOf booleanArrayOf doubleArrayOf
    floatArrayOf shortArrayOf buildList buildSet buildMap buildString lazy lazyOf require
    requireNotNull check checkNotNull error TODO repeat run with apply also let takeIf takeUnless to
    maxOf minOf synchronized assert runCatching suspend enumValues enumValueOf
    """.split()
) | _JAVA_LANG
_KOTLIN_SEQUENCES = frozenset(
    """
    Array List MutableList ArrayList Collection MutableCollection Iterable MutableIterable Set MutableSet
    HashSet LinkedHashSet Sequence Iterator MutableIterator ListIterator
    """.split()
) | _JAVA_SEQUENCES
_KOTLIN_MAPPINGS = frozenset("Map MutableMap HashMap LinkedHashMap".split()) | _JAVA_MAPPINGS
# (Not `Result`, `Pair`, `Lazy`: a project's class of that name is more often meant than the library's.)
_KOTLIN_PRIMITIVES = frozenset(
    """
    Any Unit Nothing String Int Long Short Byte Char Boolean Double Float Number CharSequence
    IntArray LongArray ByteArray CharArray BooleanArray DoubleArray FloatArray ShortArray StringBuilder
    Integer Character Object literal
    """.split()
) | _KOTLIN_SEQUENCES | _KOTLIN_MAPPINGS
# The standard library's scope functions and the members of strings, collections, sequences and
# results: never guessed on an unknown receiver.
_KOTLIN_COMMON_METHODS = frozenset(
    """
    let run also apply takeIf takeUnless use map mapNotNull mapIndexed mapTo flatMap flatten forEach
    forEachIndexed onEach filter filterNot filterNotNull filterIsInstance first firstOrNull last lastOrNull
    single singleOrNull find findLast any all none count sumOf maxOf minOf maxBy minBy maxByOrNull
    minByOrNull sorted sortedBy sortedByDescending sortedWith reversed distinct distinctBy groupBy
    associate associateBy associateWith partition chunked windowed zip take takeLast takeWhile drop
    dropLast dropWhile fold reduce joinToString toList toMutableList toSet toMutableSet toMap
    toMutableMap toTypedArray asSequence asIterable isEmpty isNotEmpty isNullOrEmpty isNullOrBlank
    orEmpty isBlank isNotBlank contains containsKey containsValue getOrNull getOrElse getOrDefault
    getOrPut getValue elementAt indexOf lastIndexOf plus minus times div rem inc dec not compareTo
    rangeTo until downTo step invoke copy component1 component2 component3 trim trimIndent trimMargin
    split lines substring substringBefore substringAfter startsWith endsWith replace lowercase uppercase
    capitalize removePrefix removeSuffix padStart padEnd toInt toLong toDouble toFloat toIntOrNull
    toBoolean toChar toByte toShort format encodeToByteArray toByteArray decodeToString getOrThrow
    onSuccess onFailure exceptionOrNull isSuccess isFailure putAll removeAll retainAll addAll
    subList iterator hasNext next withIndex indices lazy await launch async emit collect
    """.split()
) | _JAVA_COMMON_METHODS
_KOTLIN_FACTORIES = {
    **dict.fromkeys(("listOf", "listOfNotNull", "emptyList", "buildList"), "List"),
    **dict.fromkeys(("mutableListOf", "arrayListOf"), "MutableList"),
    **dict.fromkeys(("setOf", "emptySet", "buildSet", "sortedSetOf"), "Set"),
    **dict.fromkeys(("mutableSetOf", "hashSetOf", "linkedSetOf"), "MutableSet"),
    **dict.fromkeys(("sequenceOf", "emptySequence"), "Sequence"),
    **dict.fromkeys(("arrayOf", "arrayOfNulls", "emptyArray"), "Array"),
    **dict.fromkeys(("mapOf", "emptyMap", "buildMap", "sortedMapOf"), "Map"),
    **dict.fromkeys(("mutableMapOf", "hashMapOf", "linkedMapOf"), "MutableMap"),
}

GRAPH_SPECS["kotlin"] = GraphSpec(
    self_names=frozenset({"this"}),
    builtins=_KOTLIN_STDLIB,
    primitive_types=_KOTLIN_PRIMITIVES,
    module_system="java",  # one package model for Java and Kotlin files: graph/java.py
    full_type_names=True,
    super_receiver="super",
    common_methods=_KOTLIN_COMMON_METHODS,
    builtin_constructors=_KOTLIN_STDLIB | _KOTLIN_PRIMITIVES,
    sequence_types=_KOTLIN_SEQUENCES,
    mapping_types=_KOTLIN_MAPPINGS,
    element_methods=frozenset(
        "first firstOrNull last lastOrNull single singleOrNull get getOrNull getOrElse elementAt elementAtOrNull "
        "find findLast random randomOrNull removeFirst removeLast removeAt next previous orElseThrow orElse "
        "orElseGet peek poll".split()
    ),
    iter_methods=frozenset(
        "filter filterNot filterNotNull sorted sortedBy sortedByDescending sortedWith sortedDescending reversed "
        "asReversed take takeLast takeWhile takeLastWhile drop dropLast dropWhile dropLastWhile distinct "
        "distinctBy toList toMutableList toSet toMutableSet toSortedSet toHashSet asSequence asIterable "
        "iterator listIterator shuffled onEach subList plus minus orEmpty".split()
    ),
    members_in_scope=True,
    separate_namespaces=True,
    guess_by_name=False,
    extension_methods=True,
    extension_this=True,
    partial_classes=True,  # a multiplatform `expect class` and its `actual` classes are one class
    types_apart=True,  # `val fd: fd`: a written type is never the property
    universal_methods=frozenset(
        "let run also apply takeIf takeUnless use to toString equals hashCode javaClass".split()
    ),
    generic_factories=_KOTLIN_FACTORIES,
)

# Scala: what every file sees without an import (`scala._`, `scala.Predef._`, `java.lang._`): the
# standard types, the collections Predef aliases and their companions' factories (`List(x)`).
_SCALA_STDLIB = frozenset(
    """
    Any AnyRef AnyVal Nothing Null Unit Boolean Byte Short Int Long Float Double Char String BigInt
    BigDecimal Array List Nil Seq IndexedSeq Vector Iterable Iterator LazyList Stream Range Set Map Option
    Some None Either Left Right Tuple2 Tuple3 Product Serializable Equals PartialFunction Function0
    Function1 Function2 StringContext StringBuilder Ordering Ordered Numeric Integral Fractional
    Throwable Exception RuntimeException Error IllegalArgumentException IllegalStateException
    UnsupportedOperationException IndexOutOfBoundsException NoSuchElementException NotImplementedError
    MatchError NullPointerException ClassCastException deprecated unchecked transient volatile native
    throws inline specialized tailrec main SerialVersionUID println print printf require assert assume
    ensuring identity implicitly summon classOf locally valueOf Symbol
    """.split()
) | _JAVA_LANG
_SCALA_SEQUENCES = frozenset(
    """
    Array List Seq IndexedSeq Vector Iterable Iterator LazyList Stream Set SortedSet Option Some Queue
    ArrayBuffer ListBuffer Buffer ArraySeq Chain NonEmptyList NonEmptyChain
    """.split()
) | _JAVA_SEQUENCES
_SCALA_MAPPINGS = frozenset("Map SortedMap TreeMap HashMap ListMap LinkedHashMap".split()) | _JAVA_MAPPINGS
# (Not `Either`, `Try`, `Future`: a project's class of that name is more often meant than the library's.)
_SCALA_PRIMITIVES = frozenset(
    """
    Any AnyRef AnyVal Nothing Null Unit Boolean Byte Short Int Long Float Double Char String BigInt
    BigDecimal StringBuilder Integer Character Object literal
    """.split()
) | _SCALA_SEQUENCES | _SCALA_MAPPINGS
# Members of collections, options, strings, futures and tries: never guessed on an unknown receiver.
_SCALA_COMMON_METHODS = frozenset(
    """
    map flatMap flatten filter filterNot withFilter foreach collect collectFirst fold foldLeft foldRight
    reduce reduceLeft reduceOption sum product max min maxBy minBy maxOption minOption exists forall count
    find head headOption last lastOption tail init isEmpty nonEmpty isDefined size length contains
    containsSlice indexOf lastIndexOf take takeWhile takeRight drop dropWhile dropRight slice splitAt span
    partition groupBy groupMap sortBy sortWith sorted reverse distinct distinctBy zip zipWithIndex unzip
    mkString toList toSeq toVector toSet toMap toArray toIterator iterator toOption toEither toTry get
    getOrElse orElse orNull fold apply unapply updated update keys values keySet mapValues view force
    grouped sliding padTo diff intersect union concat appended prepended appendedAll prependedAll
    startsWith endsWith trim split stripPrefix stripSuffix stripMargin toLowerCase toUpperCase
    replace replaceAll format toInt toLong toDouble toFloat toBoolean toChar charAt substring isBlank
    onComplete recover recoverWith transform andThen compose copy productIterator productArity
    equals hashCode toString getClass isInstanceOf asInstanceOf synchronized eq ne
    """.split()
) | _JAVA_COMMON_METHODS

GRAPH_SPECS["scala"] = GraphSpec(
    self_names=frozenset({"this"}),
    builtins=_SCALA_STDLIB,
    primitive_types=_SCALA_PRIMITIVES,
    module_system="java",  # one package model for the JVM languages' files: graph/java.py
    full_type_names=True,
    super_receiver="super",
    common_methods=_SCALA_COMMON_METHODS,
    builtin_constructors=_SCALA_STDLIB | _SCALA_PRIMITIVES,
    sequence_types=_SCALA_SEQUENCES,
    mapping_types=_SCALA_MAPPINGS,
    element_methods=frozenset(
        "head headOption last lastOption get getOrElse find apply next min max minBy maxBy".split()
    ),
    iter_methods=frozenset(
        "filter filterNot withFilter sorted sortBy sortWith reverse take takeWhile takeRight drop dropWhile "
        "dropRight distinct distinctBy toList toSeq toVector toSet toArray toIterator iterator view tail init "
        "slice orElse".split()
    ),
    members_in_scope=True,  # a class's methods see its members and its parameters by their bare names
    guess_by_name=False,
    extension_methods=True,  # Scala 3 `extension (o: Order)` and `implicit class` methods
    partial_classes=True,  # a class and its companion object are one qualified name
    types_apart=True,  # `val order: Order`: a written type is never the val
)

# Swift: the standard library, Foundation's everyday names and the attributes of the language, seen
# from every file (a module imports Swift implicitly; Foundation and UIKit are not indexed).
_SWIFT_SEQUENCES = frozenset(
    "Array ArraySlice ContiguousArray Set Sequence Collection AnySequence AnyCollection IndexSet".split()
)
_SWIFT_MAPPINGS = frozenset("Dictionary KeyValuePairs".split())
_SWIFT_PRIMITIVES = frozenset(
    """
    Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Float Double CGFloat Bool String Substring
    Character Void Never Any AnyObject AnyHashable Optional Result Error Range ClosedRange Data Date URL
    UUID TimeInterval NSObject NSString NSNumber Decimal literal
    """.split()
) | _SWIFT_SEQUENCES | _SWIFT_MAPPINGS
_SWIFT_BUILTINS = _SWIFT_PRIMITIVES | frozenset(
    """
    print debugPrint dump fatalError precondition preconditionFailure assert assertionFailure min max abs
    zip stride type swap withUnsafePointer withUnsafeMutablePointer withExtendedLifetime repeatElement
    sequence numericCast unsafeBitCast isKnownUniquelyReferenced withCheckedContinuation
    withCheckedThrowingContinuation withTaskGroup withThrowingTaskGroup Task MainActor Equatable Hashable
    Comparable Codable Encodable Decodable Identifiable CustomStringConvertible CustomDebugStringConvertible
    Sendable Error LocalizedError CaseIterable RawRepresentable ExpressibleByStringLiteral
    ExpressibleByIntegerLiteral IteratorProtocol AsyncSequence AsyncStream Actor ObservableObject
    objc objcMembers main available discardableResult escaping autoclosure inlinable usableFromInline
    frozen propertyWrapper resultBuilder dynamicMemberLookup testable nonobjc IBAction IBOutlet
    IBDesignable IBInspectable NSManaged GKInspectable UIApplicationMain NSApplicationMain Published
    State Binding ObservedObject StateObject EnvironmentObject Environment Sendable unchecked
    preconcurrency Observable MainActor globalActor
    """.split()
)
# Methods of the standard library's strings, collections, optionals and results: never guessed on
# an unknown receiver.
_SWIFT_COMMON_METHODS = frozenset(
    """
    map compactMap flatMap filter reduce forEach sorted sort reversed reverse contains first last firstIndex
    lastIndex append insert remove removeAll removeFirst removeLast removeValue popLast prefix suffix
    dropFirst dropLast joined split components enumerated index count isEmpty min max allSatisfy
    lowercased uppercased hasPrefix hasSuffix replacingOccurrences trimmingCharacters appending
    description hash hashValue encode decode init get set updateValue merge mapValues keys values
    randomElement shuffled shuffle zip sum makeIterator next distance formIndex replaceSubrange
    withUnsafeBytes data string cancel resume value callAsFunction
    """.split()
)

GRAPH_SPECS["swift"] = GraphSpec(
    self_names=frozenset({"self"}),
    builtins=_SWIFT_BUILTINS,
    primitive_types=_SWIFT_PRIMITIVES,
    module_system="swift",
    super_receiver="super",
    common_methods=_SWIFT_COMMON_METHODS,
    builtin_constructors=_SWIFT_PRIMITIVES,
    sequence_types=_SWIFT_SEQUENCES,
    mapping_types=_SWIFT_MAPPINGS,
    element_methods=frozenset("randomElement popLast removeFirst removeLast min max".split()),
    iter_methods=frozenset(
        "filter sorted reversed shuffled prefix suffix dropFirst dropLast makeIterator".split()
    ),
    members_in_scope=True,  # implicit `self`: `save()` in a method is `self.save()`, inherited ones too
    guess_by_name=False,  # a name is the module's, an imported module's, or the library's
    partial_classes=True,  # `extension Order` adds members and conformances to Order from any file
    # An `extension` is a block, not a symbol (swift-graph.scm): its methods belong to the type of
    # that name wherever it is declared, like a C++ method defined out of line.
    out_of_line_methods=True,
)


# Bash: its builtins and keywords, and the POSIX utilities every system has; any other command the
# project defines no function for is a program on the PATH (external).
_BASH_BUILTINS = frozenset(
    """
    . : [ [[ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs
    disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local
    logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend
    test times trap true type typeset ulimit umask unalias unset wait time coproc
    awk basename cat chgrp chmod chown cksum cmp comm cp cut date dd df diff dirname du env expand expr
    false file find fold fuser getconf grep head iconv id join link ln logger ls mkdir mkfifo mktemp mv
    nice nl nohup od paste patch pathchk printf ps pwd readlink realpath renice rm rmdir sed seq sh sleep
    sort split stat strings stty tail tee timeout touch tput tr tsort tty uname unexpand uniq unlink wc
    which xargs yes
    """.split()
)
GRAPH_SPECS["bash"] = GraphSpec(
    self_names=frozenset(),
    builtins=_BASH_BUILTINS,
    primitive_types=frozenset(),
    module_system="shell",  # `source` and `.`: graph/shell.py
    guess_by_name=False,  # the project step (graph/shell.py) is the shell's guess, with sourced files known
    unknown_external=True,
)

_DEFAULT = GraphSpec(frozenset({"this", "self"}), frozenset(), frozenset(), "")


def spec_for(language: str) -> GraphSpec:
    return GRAPH_SPECS.get(language, _DEFAULT)

