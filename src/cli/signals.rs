//! Ctrl-C and SIGTERM for the long jobs: the first asks the job to stop
//! where it can keep its work, the second ends the process.

/// A flag that the first SIGINT or SIGTERM raises, so that a long job
/// (datagen, rescoring, a book build) stops at its next whole record, keeps
/// what it made and prints its summary; a second signal ends the process at
/// once (status 130). The signals are caught from the moment this returns.
pub(crate) fn stop_on_signal() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::{AtomicBool, Ordering};
    static STOP: AtomicBool = AtomicBool::new(false);
    let (ready, caught) = std::sync::mpsc::channel();
    let watcher = std::thread::Builder::new()
        .name("kingme-signals".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                let Ok(mut signals) = kingme::server::Signals::new() else {
                    return;
                };
                let _ = ready.send(());
                signals.next().await;
                STOP.store(true, Ordering::Relaxed);
                eprintln!("kingme: stopping after the work under way; a second signal ends it now");
                signals.next().await;
                std::process::exit(130);
            });
        });
    let installed = watcher.is_ok() && caught.recv().is_ok();
    if !installed {
        // the job still runs; a signal then ends it the default way
        tracing::warn!("signals are not caught: Ctrl-C ends the job at once");
    }
    &STOP
}
