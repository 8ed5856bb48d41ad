package io.nsc.trino.delete;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.json.JsonCodec;
import io.airlift.json.JsonCodecFactory;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.RemovedRowGroups;
import io.nsc.trino.write.NscWriteFragment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What a DELETE, UPDATE or MERGE takes out of its table and what it writes in its place: from one
 * merge sink to the coordinator's commit, or planned from the compact stats alone. Every file is
 * named at most once, in one of the three removals.
 *
 * @param removedFileIds files every remaining row of which was deleted: removed in the metadata alone
 * @param removedRowGroups row groups every row of which was deleted, by file: removed in the metadata alone
 * @param rewrittenFileIds files with some rows deleted, whose surviving rows are in {@code written}
 * @param written the files of the surviving rows, uploaded, to commit
 * @param inserted the files of the rows the statement inserts (an UPDATE's new values, a MERGE's
 *        inserts), uploaded, to commit
 */
public record NscMergeFragment(List<String> removedFileIds, Map<String, List<Integer>> removedRowGroups, List<String> rewrittenFileIds, List<NscWriteFragment> written, List<NscWriteFragment> inserted)
{
    private static final JsonCodec<NscMergeFragment> CODEC = new JsonCodecFactory().jsonCodec(NscMergeFragment.class);

    public NscMergeFragment
    {
        removedFileIds = ImmutableList.copyOf(requireNonNull(removedFileIds, "removedFileIds is null"));
        removedRowGroups = ImmutableMap.copyOf(requireNonNull(removedRowGroups, "removedRowGroups is null"));
        rewrittenFileIds = ImmutableList.copyOf(requireNonNull(rewrittenFileIds, "rewrittenFileIds is null"));
        written = ImmutableList.copyOf(requireNonNull(written, "written is null"));
        inserted = ImmutableList.copyOf(requireNonNull(inserted, "inserted is null"));
        Set<String> named = new HashSet<>();
        Stream.of(removedFileIds.stream(), removedRowGroups.keySet().stream(), rewrittenFileIds.stream())
                .flatMap(ids -> ids)
                .forEach(fileId -> checkArgument(named.add(fileId), "file %s is named twice", fileId));
        checkArgument(written.isEmpty() || !rewrittenFileIds.isEmpty(), "files written without a file rewritten");
    }

    /** A DELETE's: it inserts nothing. */
    public static NscMergeFragment deletion(List<String> removedFileIds, Map<String, List<Integer>> removedRowGroups)
    {
        return new NscMergeFragment(removedFileIds, removedRowGroups, List.of(), List.of(), List.of());
    }

    /** Whether the statement changed nothing: no row matched, and none was inserted. */
    public boolean isEmpty()
    {
        return !removesFiles() && inserted.isEmpty();
    }

    /** Whether the statement takes files or row groups out of the table (else its commit only adds files, as an INSERT). */
    public boolean removesFiles()
    {
        return !removedFileIds.isEmpty() || !removedRowGroups.isEmpty() || !rewrittenFileIds.isEmpty();
    }

    public int rowGroupsRemoved()
    {
        return removedRowGroups.values().stream().mapToInt(List::size).sum();
    }

    /** Every file the commit adds: the survivors', then the inserted rows'. */
    public List<NscWriteFragment> filesToAdd()
    {
        return ImmutableList.<NscWriteFragment>builder().addAll(written).addAll(inserted).build();
    }

    /** The removals of a commit that read {@code readVersion}. */
    public FileRemovals toRemovals(long readVersion)
    {
        FileRemovals.Builder removals = FileRemovals.newBuilder()
                .setReadVersion(readVersion)
                .addAllRemovedFileIds(removedFileIds)
                .addAllRewrittenFileIds(rewrittenFileIds)
                .addAllInsertedFileIds(inserted.stream().map(NscWriteFragment::fileId).toList());
        removedRowGroups.forEach((fileId, rowGroups) -> removals.addRemovedRowGroups(RemovedRowGroups.newBuilder().setFileId(fileId).addAllRowGroups(rowGroups)));
        return removals.build();
    }

    /** One statement's fragments as one: each sink saw other files. */
    public static NscMergeFragment combine(Collection<NscMergeFragment> fragments)
    {
        List<String> removed = new ArrayList<>();
        Map<String, List<Integer>> rowGroups = new LinkedHashMap<>();
        List<String> rewritten = new ArrayList<>();
        List<NscWriteFragment> written = new ArrayList<>();
        List<NscWriteFragment> inserted = new ArrayList<>();
        for (NscMergeFragment fragment : fragments) {
            removed.addAll(fragment.removedFileIds());
            rowGroups.putAll(fragment.removedRowGroups());
            rewritten.addAll(fragment.rewrittenFileIds());
            written.addAll(fragment.written());
            inserted.addAll(fragment.inserted());
        }
        return new NscMergeFragment(removed, rowGroups, rewritten, written, inserted);
    }

    public Slice toSlice()
    {
        return Slices.wrappedBuffer(CODEC.toJsonBytes(this));
    }

    public static NscMergeFragment fromSlice(Slice slice)
    {
        return CODEC.fromJson(slice.getBytes());
    }
}
