package io.nsc.storage.membership;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.nsc.storage.store.DataDirectory;
import org.weakref.jmx.Managed;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.joining;

/**
 * The cluster this node's files belong to, and whether the metadata service it talks to is that
 * cluster's.
 * <p>
 * Why it exists: the metadata service names as an orphan every file its catalog does not claim.
 * A service started on an empty or wrong data directory claims nothing, and every node would
 * delete all its files older than the minimum age. So the catalog has an id, created once with
 * its database and sent in every RegisterNode, Heartbeat and FindOrphans answer; the node keeps
 * the id it first registered under in a file {@code cluster-id} in each data directory, and
 * reclaims nothing while the two differ.
 * <p>
 * The node's id is the one its data directories agree on. With none yet (a new node, or one
 * from before cluster ids: the upgrade) it adopts the id of its first registration answer and
 * writes it to every data directory; a directory without it (a new disk) gets it once a service
 * has confirmed it. Directories that disagree with each other, or hold an unreadable id, need a
 * human: the node adopts nothing and reclaims nothing until restarted with consistent ones. A
 * service answering another id is a mismatch until a service answers the node's id again. Reads
 * are served throughout: the guard only stops deletion.
 * <p>
 * Thread-safe: the membership thread reports registrations and heartbeats, the orphan thread asks
 * before deleting and reports FindOrphans answers, metrics read the state.
 */
public final class ClusterIdentity
{
    private static final Logger log = Logger.get(ClusterIdentity.class);

    // the metadata service sends a UUID; any short printable token compares, so a later format
    // still works, but nothing that cannot have come from the service (a stray or damaged file)
    private static final Pattern VALID_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final int MAX_SHOWN_CONTENT = 64;

    private final List<DataDirectory> directories;
    // why the node cannot have one id (directories disagree, an id file is unreadable): a
    // human's job, so it holds until the node restarts
    private final Optional<String> conflict;

    // guarded by this
    private Optional<String> clusterId;
    private final Set<DataDirectory> directoriesWithoutId;
    private boolean mismatch;
    // the differing id last logged, so that a heartbeat every few seconds logs a mismatch once
    private Optional<String> loggedServiceId = Optional.empty();

    private ClusterIdentity(List<DataDirectory> directories, Optional<String> clusterId, List<DataDirectory> directoriesWithoutId, Optional<String> conflict)
    {
        this.directories = ImmutableList.copyOf(directories);
        this.clusterId = requireNonNull(clusterId, "clusterId is null");
        this.directoriesWithoutId = new LinkedHashSet<>(directoriesWithoutId);
        this.conflict = requireNonNull(conflict, "conflict is null");
    }

    /** Reads the id files of the data directories; never fails (a bad file only stops reclaim). */
    public static ClusterIdentity load(List<Path> dataDirs)
    {
        checkArgument(!dataDirs.isEmpty(), "no data directories");
        List<DataDirectory> directories = dataDirs.stream().map(DataDirectory::new).collect(toImmutableList());
        Map<String, List<DataDirectory>> directoriesById = new LinkedHashMap<>();
        List<DataDirectory> withoutId = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        for (DataDirectory directory : directories) {
            Optional<String> id;
            try {
                id = directory.readClusterId();
            }
            catch (IOException e) {
                unreadable.add("cannot read %s: %s".formatted(directory.clusterIdPath(), e));
                continue;
            }
            if (id.isEmpty()) {
                withoutId.add(directory);
            }
            else if (!isValid(id.get())) {
                unreadable.add("%s holds no valid cluster id: '%s'".formatted(directory.clusterIdPath(), shorten(id.get())));
            }
            else {
                directoriesById.computeIfAbsent(id.get(), _ -> new ArrayList<>()).add(directory);
            }
        }

        Optional<String> conflict = Optional.empty();
        if (!unreadable.isEmpty()) {
            conflict = Optional.of("This node's cluster id files are damaged (%s)".formatted(String.join("; ", unreadable)));
        }
        else if (directoriesById.size() > 1) {
            conflict = Optional.of("This node's data directories disagree about the cluster their files belong to (%s)".formatted(
                    directoriesById.entrySet().stream()
                            .map(entry -> "cluster %s in %s".formatted(entry.getKey(), entry.getValue()))
                            .collect(joining("; "))));
        }
        Optional<String> clusterId = conflict.isEmpty() ? directoriesById.keySet().stream().findFirst() : Optional.empty();

        if (conflict.isPresent()) {
            log.error("%s; refusing to reclaim files until that is fixed and the node restarted. Reads are served as usual.", conflict.get());
        }
        else if (clusterId.isPresent()) {
            log.info("The files in %s belong to cluster %s", directoriesById.get(clusterId.get()), clusterId.get());
        }
        else {
            log.info("No cluster id in %s yet: the node takes its metadata service's at its first registration", directories);
        }
        return new ClusterIdentity(directories, clusterId, withoutId, conflict);
    }

    /**
     * A registration answer: a node without an id adopts the service's and writes it to every
     * data directory; a node with one compares, and on agreement writes it where it is missing.
     */
    public synchronized void registered(String metadataAddress, String serviceClusterId, int filesHeld)
    {
        requireNonNull(metadataAddress, "metadataAddress is null");
        requireNonNull(serviceClusterId, "serviceClusterId is null");
        if (conflict.isPresent()) {
            mismatch = true;
            log.error("%s; the metadata service at %s is cluster %s. Refusing to reclaim files until that is fixed and the node restarted.",
                    conflict.get(), metadataAddress, describe(serviceClusterId));
            return;
        }
        if (clusterId.isEmpty() && isValid(serviceClusterId)) {
            // a new node, or one upgraded from before cluster ids: the service it registers with now is its cluster
            clusterId = Optional.of(serviceClusterId);
            mismatch = false;
            List<DataDirectory> written = writeMissingIds();
            if (filesHeld > 0) {
                log.info("This node holds %s files from before cluster ids: adopting cluster %s of the metadata service at %s for them (written to %s)",
                        filesHeld, serviceClusterId, metadataAddress, written);
            }
            else {
                log.info("Joined cluster %s of the metadata service at %s (written to %s)", serviceClusterId, metadataAddress, written);
            }
            return;
        }
        if (clusterId.isEmpty()) {
            // nothing to adopt: without an id the node cannot tell its cluster's answers from others'
            mismatch = true;
            log.error("The metadata service at %s is cluster %s: this node adopts no cluster id from it and refuses to reclaim files", metadataAddress, describe(serviceClusterId));
            return;
        }
        if (compare(metadataAddress, serviceClusterId) && !directoriesWithoutId.isEmpty()) {
            List<DataDirectory> written = writeMissingIds();
            if (!written.isEmpty()) {
                log.info("Wrote cluster id %s to %s, which had none", serviceClusterId, written);
            }
        }
    }

    /** Any other answer carrying the service's id (Heartbeat, FindOrphans): compares, never adopts. */
    public synchronized void answered(String metadataAddress, String serviceClusterId)
    {
        requireNonNull(metadataAddress, "metadataAddress is null");
        requireNonNull(serviceClusterId, "serviceClusterId is null");
        if (conflict.isEmpty()) {
            compare(metadataAddress, serviceClusterId);
        }
    }

    /**
     * The node's cluster id, when the node may delete files on the word of a metadata service
     * answering that id: the directories agree and no service answered another id since. The
     * caller still checks each answer's id, for a service replaced in between.
     */
    public synchronized Optional<String> clusterIdForReclaim()
    {
        if (conflict.isPresent() || mismatch) {
            return Optional.empty();
        }
        return clusterId;
    }

    /** The node's cluster id; empty before its first registration, or while its directories disagree. */
    @Managed
    public synchronized String getClusterId()
    {
        return clusterId.orElse("");
    }

    /** 1 while the node refuses to reclaim files because of its cluster id, else 0. */
    @Managed
    public synchronized int getClusterIdMismatch()
    {
        return isMismatch() ? 1 : 0;
    }

    public synchronized boolean isMismatch()
    {
        return conflict.isPresent() || mismatch;
    }

    /**
     * @return whether the service's id is the node's
     */
    private boolean compare(String metadataAddress, String serviceClusterId)
    {
        if (clusterId.isEmpty()) {
            // nothing to compare with: only a registration gives the node its id
            return false;
        }
        if (clusterId.get().equals(serviceClusterId)) {
            if (mismatch) {
                log.info("The metadata service at %s is cluster %s again, like this node's files: reclaiming files resumes", metadataAddress, serviceClusterId);
            }
            mismatch = false;
            loggedServiceId = Optional.empty();
            return true;
        }
        mismatch = true;
        if (!loggedServiceId.equals(Optional.of(serviceClusterId))) {
            loggedServiceId = Optional.of(serviceClusterId);
            log.error("This node's files belong to cluster %s but the metadata service at %s is cluster %s; refusing to reclaim files (data directories: %s). "
                            + "Is the metadata service running on an empty or wrong data directory? Reads are served as usual.",
                    clusterId.get(), metadataAddress, describe(serviceClusterId), directories);
        }
        return false;
    }

    /** Writes the node's id where it is missing; a failure is logged and retried at the next registration. */
    private List<DataDirectory> writeMissingIds()
    {
        String id = clusterId.orElseThrow();
        List<DataDirectory> written = new ArrayList<>();
        for (DataDirectory directory : List.copyOf(directoriesWithoutId)) {
            try {
                directory.writeClusterId(id);
                directoriesWithoutId.remove(directory);
                written.add(directory);
            }
            catch (IOException e) {
                // the node keeps its id in memory; only a restart before the next registration
                // finds the directory without one again
                log.error(e, "Cannot write cluster id %s to %s; trying again at the next registration", id, directory.clusterIdPath());
            }
        }
        return written;
    }

    private static boolean isValid(String id)
    {
        return VALID_ID.matcher(id).matches();
    }

    private static String describe(String serviceClusterId)
    {
        if (serviceClusterId.isEmpty()) {
            return "unknown (it sent no cluster id: is it older than this node?)";
        }
        return isValid(serviceClusterId) ? serviceClusterId : "'%s' (not a valid cluster id)".formatted(shorten(serviceClusterId));
    }

    private static String shorten(String text)
    {
        return text.length() <= MAX_SHOWN_CONTENT ? text : text.substring(0, MAX_SHOWN_CONTENT) + "...";
    }
}
