/*
 * A producer no one here wrote: Apache Kafka's own Java client, publishing event lines the way log
 * shippers do (a compression type set, or inside a transaction). Built and run by
 * test/support/java-producer.ts.
 *
 * Usage: java JavaProducer <brokers> <edge topic> <function-edge topic>
 * Standard input: one record per line, "<mode>\t<source>\t<key>\t<value>", where mode is a
 * compression type (none, gzip, snappy, lz4, zstd), or "commit" or "abort" (one transaction,
 * committed or aborted once all its records reached the broker). An empty key sends none.
 * Consecutive lines of one mode go through one producer.
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public final class JavaProducer {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: JavaProducer <brokers> <edge topic> <function-edge topic>");
      System.exit(2);
    }
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String mode = null;
    List<String[]> group = new ArrayList<>();
    int published = 0;
    for (String line; (line = in.readLine()) != null; ) {
      String[] fields = line.split("\t", 4);
      if (fields.length != 4) throw new IllegalArgumentException("not 4 fields: " + line);
      if (mode != null && !mode.equals(fields[0])) {
        published += publish(args, mode, group);
        group.clear();
      }
      mode = fields[0];
      group.add(fields);
    }
    if (mode != null) published += publish(args, mode, group);
    System.out.println("published " + published);
  }

  private static int publish(String[] args, String mode, List<String[]> records) throws Exception {
    boolean transactional = mode.equals("commit") || mode.equals("abort");
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    // Batches of many records, as a shipper sends them: compression works on whole batches.
    properties.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    properties.put(ProducerConfig.BATCH_SIZE_CONFIG, "262144");
    properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, transactional ? "none" : mode);
    if (transactional) {
      properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "java-producer-" + UUID.randomUUID());
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(properties)) {
      if (transactional) {
        producer.initTransactions();
        producer.beginTransaction();
      }
      for (String[] record : records) {
        String topic = record[1].equals("edge") ? args[1] : args[2];
        String key = record[2].isEmpty() ? null : record[2];
        producer.send(new ProducerRecord<>(topic, key, record[3]));
      }
      // Every record reaches the broker first: an aborted transaction then leaves them in the
      // log, for the consumers to leave out.
      producer.flush();
      if (mode.equals("commit")) producer.commitTransaction();
      if (mode.equals("abort")) producer.abortTransaction();
    }
    return records.size();
  }
}
