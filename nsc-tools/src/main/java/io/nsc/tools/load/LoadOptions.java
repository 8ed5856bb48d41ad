package io.nsc.tools.load;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * @param replication copies of each file; 0 leaves the choice to the metadata service
 * @param verify decode every column of every row group before uploading, so that corrupt pages
 *         or broken compression are refused up front instead of failing queries later
 */
public record LoadOptions(int replication, boolean verify)
{
    public LoadOptions
    {
        checkArgument(replication >= 0, "replication must not be negative: %s", replication);
    }

    public static LoadOptions defaults()
    {
        return new LoadOptions(0, true);
    }

    public LoadOptions withReplication(int replication)
    {
        return new LoadOptions(replication, verify);
    }

    public LoadOptions withVerify(boolean verify)
    {
        return new LoadOptions(replication, verify);
    }
}
