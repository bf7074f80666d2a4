/**
 * The binary table format of docs/wire-format.md in one place: answer kinds, column types, schema, codecs, the
 * encoder the service writes answers with and the decoder clients read them with.
 */
module io.outpost.wire {
    requires com.github.luben.zstd_jni;

    exports io.outpost.wire;
}
