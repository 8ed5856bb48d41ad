import com.sun.tools.attach.VirtualMachine;

/**
 * Loads a native agent into a running JVM: {@code java AttachAgent.java PID LIBRARY OPTIONS}.
 * jcmd's JVMTI.agent_load reads "key=value" in the options as its own arguments, so
 * async-profiler's options (start,event=itimer,...) reach the agent only through the attach API.
 */
public final class AttachAgent
{
    private AttachAgent() {}

    public static void main(String[] args)
            throws Exception
    {
        if (args.length != 3) {
            System.err.println("usage: java AttachAgent.java PID LIBRARY OPTIONS");
            System.exit(2);
        }
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        try {
            vm.loadAgentPath(args[1], args[2]);
        }
        finally {
            vm.detach();
        }
    }
}
